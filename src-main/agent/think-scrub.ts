/**
 * Reasoning a model writes inline in its reply (`<think>…</think>` and its variants, as Qwen3 / DeepSeek-R1 served by
 * Ollama, vLLM or llama.cpp do), handled as upstream handles it: never shown or sent on as reply text, kept as the
 * row's reasoning. `ThinkScrubber` does it for a stream whose tags may be split across deltas; `withoutThinkBlocks`
 * and `inlineReasoning` for a whole reply.
 * Golden: test/fixtures/upstream/inline-think (scripts/golden/inline_think.py).
 */
const NAMES = ['think', 'thinking', 'reasoning', 'thought', 'REASONING_SCRATCHPAD']
const ALT = NAMES.join('|')
const OPENS = NAMES.map((n) => `<${n.toLowerCase()}>`)
const CLOSES = NAMES.map((n) => `</${n.toLowerCase()}>`)
const LONGEST = Math.max(...[...OPENS, ...CLOSES].map((t) => t.length))
/** A close tag with no open before it is noise: dropped with the whitespace after it. */
const ORPHAN_CLOSE = new RegExp(`</(?:${ALT})>[ \\t\\n\\r]*`, 'gi')

export interface Scrubbed {
  /** What may be shown (and sent on) as reply text. */
  text: string
  /** What was inside reasoning blocks. */
  reasoning: string
}

/** Length of the longest tail of `lower` that is the start (not the whole) of one of `tags`: held back a delta. */
function partialTail(lower: string, tags: string[]): number {
  for (let n = Math.min(lower.length, LONGEST - 1); n > 0; n--) {
    const tail = lower.slice(-n)
    if (tags.some((t) => t.length > n && t.startsWith(tail))) return n
  }
  return 0
}

/**
 * Stateful per stream. An open tag starts a block only at a line's start (so prose naming `<think>` is kept); a closed
 * pair is a block anywhere; a tag cut across deltas is held back until the next delta settles it, never shown partly.
 */
export class ThinkScrubber {
  private inBlock = false
  private held = ''
  /** Nothing shown yet, or what was shown last ended a line: an open tag here starts a block. */
  private lineStart = true
  /** Blocks begun so far: a later one's reasoning is set off from the one before by a blank line. */
  private blocks = 0

  feed(delta: string): Scrubbed {
    let buf = this.held + delta
    this.held = ''
    let text = ''
    let reasoning = ''
    const show = (s: string): void => {
      const kept = s.replace(ORPHAN_CLOSE, '')
      if (!kept) return
      text += kept
      this.lineStart = kept.endsWith('\n')
    }
    while (buf) {
      const lower = buf.toLowerCase()
      if (this.inBlock) {
        const close = firstTag(lower, CLOSES, 0)
        if (!close) {
          const keep = partialTail(lower, CLOSES)
          reasoning += buf.slice(0, buf.length - keep)
          this.held = buf.slice(buf.length - keep)
          break
        }
        reasoning += buf.slice(0, close.at)
        buf = buf.slice(close.at + close.len)
        this.inBlock = false
        continue
      }
      const pair = this.closedPair(lower)
      const open = this.openAtLineStart(buf, lower)
      if (pair && (!open || pair.start <= open.at)) {
        show(buf.slice(0, pair.start))
        reasoning += (this.blocks++ ? '\n\n' : '') + buf.slice(pair.innerStart, pair.innerEnd)
        buf = buf.slice(pair.end)
      } else if (open) {
        show(buf.slice(0, open.at))
        if (this.blocks++) reasoning += '\n\n'
        this.inBlock = true
        buf = buf.slice(open.at + open.len)
      } else {
        const keep = Math.max(partialTail(lower, OPENS), partialTail(lower, CLOSES))
        show(buf.slice(0, buf.length - keep))
        this.held = buf.slice(buf.length - keep)
        break
      }
    }
    return { text, reasoning }
  }

  /** End of stream: an unclosed block is dropped (a cut answer beats leaked reasoning); held prose is released. */
  flush(): Scrubbed {
    const tail = this.held
    this.held = ''
    if (this.inBlock) {
      this.inBlock = false
      return { text: '', reasoning: tail }
    }
    const text = tail.replace(ORPHAN_CLOSE, '')
    if (text) this.lineStart = text.endsWith('\n')
    return { text, reasoning: '' }
  }

  /** The earliest `<tag>…</tag>` of any variant (the nearest close after its open). */
  private closedPair(lower: string): { start: number; innerStart: number; innerEnd: number; end: number } | null {
    let best: { start: number; innerStart: number; innerEnd: number; end: number } | null = null
    OPENS.forEach((o, i) => {
      const start = lower.indexOf(o)
      if (start < 0) return
      const innerEnd = lower.indexOf(CLOSES[i], start + o.length)
      if (innerEnd < 0) return
      if (!best || start < best.start)
        best = { start, innerStart: start + o.length, innerEnd, end: innerEnd + CLOSES[i].length }
    })
    return best
  }

  private openAtLineStart(buf: string, lower: string): { at: number; len: number } | null {
    let best: { at: number; len: number } | null = null
    for (const o of OPENS) {
      for (let at = lower.indexOf(o); at >= 0; at = lower.indexOf(o, at + 1)) {
        if (!this.atLineStart(buf, at)) continue
        if (!best || at < best.at) best = { at, len: o.length }
        break
      }
    }
    return best
  }

  private atLineStart(buf: string, at: number): boolean {
    const before = buf.slice(0, at)
    const nl = before.lastIndexOf('\n')
    if (nl < 0) return this.lineStart && before.trim() === ''
    return before.slice(nl + 1).trim() === ''
  }
}

function firstTag(lower: string, tags: string[], from: number): { at: number; len: number } | null {
  let best: { at: number; len: number } | null = null
  for (const t of tags) {
    const at = lower.indexOf(t, from)
    if (at >= 0 && (!best || at < best.at)) best = { at, len: t.length }
  }
  return best
}

const PAIRS = NAMES.map((n) => new RegExp(`<${n}>.*?</${n}>`, 'gsi'))
const TOOL_XML = ['tool_call', 'tool_calls', 'tool_result', 'function_call', 'function_calls'].map(
  (n) => new RegExp(`<${n}\\b[^>]*>.*?</${n}>`, 'gsi')
)
/** A Gemma-style `<function name=…>` call, only where a block starts (so prose naming `<function>` stays). */
const FUNCTION_CALL =
  /(?:(?<=^)|(?<=[\n\r.!?:]))[ \t]*<function\b[^>]*\bname\s*=[^>]*>(?:(?:(?!<\/function>).)*)<\/function>/gis
/** A reasoning block opened at the start of a line and never closed: it runs to the end. */
const UNCLOSED = new RegExp(`(?:^|\\n)[ \\t]*<(?:${ALT})\\b[^>]*>.*$`, 'si')
const STRAY = new RegExp(`</?(?:${ALT})>\\s*`, 'gi')
const STRAY_TOOL_CLOSE = /<\/(?:tool_call|tool_calls|tool_result|function_call|function_calls|function)>\s*/gi

/** A whole reply without its reasoning blocks (closed, unclosed at a line start, stray tags) or inline tool XML. */
export function withoutThinkBlocks(text: string): string {
  for (const re of PAIRS) text = text.replace(re, '')
  for (const re of TOOL_XML) text = text.replace(re, '')
  return text.replace(FUNCTION_CALL, '').replace(UNCLOSED, '').replace(STRAY, '').replace(STRAY_TOOL_CLOSE, '')
}

/** Upstream's order of looking for inline reasoning when the provider sent none of its own. */
const INNER = ['think', 'thinking', 'thought', 'reasoning', 'REASONING_SCRATCHPAD'].map(
  (n) => new RegExp(`<${n}>(.*?)</${n}>`, 'gsi')
)

/** The text of a reply's closed reasoning blocks, each trimmed, distinct ones joined by a blank line; '' for none. */
export function inlineReasoning(text: string): string {
  const parts: string[] = []
  for (const re of INNER)
    for (const m of text.matchAll(re)) {
      const part = m[1].trim()
      if (part && !parts.includes(part)) parts.push(part)
    }
  return parts.join('\n\n')
}
