/**
 * The text upstream Hermes puts around a tool's own result before it stores it (agent/tool_executor.py, in this
 * order): the per-result budget replaces an oversized result with a `<persisted-output>` preview (or, with no
 * sandbox to write to, the preview plus a `[Truncated: …]` line); subdirectory context files found under a path
 * the call touched are appended; make_tool_result_message wraps results of web_search, web_extract, browser_* and
 * mcp_* over 32 characters in `<untrusted_tool_result source="…">` with a fixed notice; the per-turn budget may
 * persist that whole text again; a message the user sent mid-turn is appended to the turn's last result. Before all
 * of these the tool-loop guard may append its warning to a repeated failure or a read-only call's repeated answer.
 * Each layer is peeled here so the tool's own result underneath renders by its shape, and the layers become notes.
 */

export interface ToolFrame {
  /** The tool named by the untrusted-content wrapper (`source="web_search"`). */
  untrusted: string | null
  /** The wrapper's notice to the model, shown once (a tooltip), not in every result. */
  notice: string | null
  /** Hermes kept only a preview: the full result's size in characters and, when it was saved, where. */
  cut: { chars: number | null; size: string | null; path: string | null } | null
  /** Subdirectory context files (AGENTS.md and the like) upstream appended for the model. */
  context: { path: string; text: string }[]
  /** A message the user sent mid-turn, delivered inside this result. */
  steer: string | null
  /** What upstream's tool-loop guard told the model after this call (a repeated failure, the same answer again). */
  guard: { stop: boolean; code: string; count: number; message: string } | null
}

const UNTRUSTED_OPEN = /^<untrusted_tool_result source="([^"]*)">\n/
const UNTRUSTED_CLOSE = '\n</untrusted_tool_result>'
const PERSISTED =
  /^<persisted-output>\nThis tool result was too large \(([\d,]+) characters, ([^)\n]*)\)\.\nFull output saved to: ([^\n]*)\n[\s\S]*?\nPreview \(first \d+ chars\):\n([\s\S]*?)(\n\.\.\.)?\n<\/persisted-output>$/
const INLINE_CUT = /\n\n\[Truncated: tool response was ([\d,]+) chars\.[^\]\n]*\]$/
const CONTEXT_MARK = '\n\n[Subdirectory context discovered: '
const GUARD = /\n\n\[Tool loop (warning|hard stop): ([a-z_]+); count=(\d+); ([^\n]*)\]$/
const STEER = /\n\n\[OUT-OF-BAND USER MESSAGE[^\]\n]*\]\n([\s\S]*)\n\[\/OUT-OF-BAND USER MESSAGE\]$/

const count = (s: string) => Number(s.replace(/,/g, ''))

/** The tool's own result inside upstream's layers, and the layers found (null when there were none). */
export function unwrapToolResult(text: string): { body: string; frame: ToolFrame | null } {
  const frame: ToolFrame = { untrusted: null, notice: null, cut: null, context: [], steer: null, guard: null }
  let body = text
  let found = false
  const steer = STEER.exec(body)
  if (steer) {
    frame.steer = steer[1]!
    body = body.slice(0, steer.index)
    found = true
  }
  // the layers nest differently by path (the turn budget persists an already wrapped result): peel until none fits
  for (let pass = 0; pass < 4; pass++) {
    const before = body
    const persisted = PERSISTED.exec(body)
    if (persisted) {
      frame.cut ??= { chars: count(persisted[1]!), size: persisted[2]!, path: persisted[3]! }
      body = persisted[4]!
    }
    const open = UNTRUSTED_OPEN.exec(body)
    if (open) {
      frame.untrusted = open[1]!
      body = body.slice(open[0].length)
      // a preview cut inside the wrapper has no closing tag
      if (body.endsWith(UNTRUSTED_CLOSE)) body = body.slice(0, -UNTRUSTED_CLOSE.length)
      const gap = body.indexOf('\n\n')
      if (gap >= 0) {
        frame.notice = body.slice(0, gap)
        body = body.slice(gap + 2)
      }
    }
    const inline = INLINE_CUT.exec(body)
    if (inline) {
      frame.cut ??= { chars: count(inline[1]!), size: null, path: null }
      body = body.slice(0, inline.index)
    }
    const ctx = body.indexOf(CONTEXT_MARK)
    if (ctx >= 0) {
      for (const part of body.slice(ctx + CONTEXT_MARK.length).split(CONTEXT_MARK)) {
        const end = part.indexOf(']\n')
        if (end >= 0) frame.context.push({ path: part.slice(0, end), text: part.slice(end + 2) })
      }
      body = body.slice(0, ctx)
    }
    // appended to the tool's own result before the budget and context steps, so found once those are peeled
    const guard = GUARD.exec(body)
    if (guard) {
      frame.guard = { stop: guard[1] === 'hard stop', code: guard[2]!, count: Number(guard[3]), message: guard[4]! }
      body = body.slice(0, guard.index)
    }
    if (body === before) break
    found = true
  }
  return { body, frame: found ? frame : null }
}

/** The characters of a JSON string literal starting at `at` (just past its quote), up to its end or the text's. */
function partialString(s: string, at: number): string {
  let out = ''
  const esc: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' }
  for (let i = at; i < s.length; i++) {
    const c = s[i]!
    if (c === '"') break
    if (c !== '\\') {
      out += c
      continue
    }
    const n = s[i + 1]
    if (n === undefined) break
    if (n === 'u') {
      const hex = s.slice(i + 2, i + 6)
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break
      out += String.fromCharCode(parseInt(hex, 16))
      i += 5
    } else {
      out += esc[n] ?? n
      i += 1
    }
  }
  return out
}

/**
 * The readable part of a JSON result cut short (a preview ends mid-string): the longest string field, decoded,
 * when it is most of the text; null when nothing dominates (then the preview reads best as it is).
 */
export function partialJsonText(preview: string): { key: string; text: string } | null {
  if (!/^\s*[{[]/.test(preview)) return null
  let best: { key: string; text: string } | null = null
  for (const m of preview.matchAll(/"([A-Za-z_][\w-]*)":\s*"/g)) {
    const text = partialString(preview, m.index + m[0].length)
    if (!best || text.length > best.text.length) best = { key: m[1]!, text }
  }
  return best && best.text.length * 2 >= preview.length ? best : null
}
