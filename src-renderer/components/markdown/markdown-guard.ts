/**
 * Whether the Markdown parser (micromark via react-markdown, remark-gfm) can take `text` in about linear time on the
 * page's one thread. A reply is anyone's text, and some shapes make the parser rescan or recurse: containers nested on
 * one line (`1. 1. 1. …`, `> > > …`: 10 KB froze the page 4.6 s, 20 KB overflowed the stack), thousands of
 * unmatched `]`, or of `*`/`_` emphasis marks. Counted outside fenced code (code is not parsed as Markdown); over a
 * bound the body is shown as plain text, whole. Real replies stay far below the bounds.
 */
const MAX_NESTING = 24
const MAX_BRACKETS = 2_000
const MAX_EMPHASIS = 4_000

export function markdownAffordable(text: string): boolean {
  let brackets = 0
  let emphasis = 0
  let fence: string | null = null
  let lineStart = 0
  while (lineStart <= text.length) {
    let end = text.indexOf('\n', lineStart)
    if (end < 0) end = text.length
    const line = text.slice(lineStart, end)
    // a fence's own lines and what they enclose are code, which the parser does not read as Markdown
    let code = true
    if (fence !== null) {
      if (fenceCloses(line, fence)) fence = null
    } else {
      fence = fenceOpening(line)
      code = fence !== null
    }
    if (!code) {
      if (nesting(text, lineStart, end) > MAX_NESTING) return false
      for (let i = lineStart; i < end; i++) {
        const c = text.charCodeAt(i)
        if (c === 0x5d)
          brackets++ // ]
        else if (c === 0x2a || c === 0x5f) emphasis++ // * _
      }
      if (brackets > MAX_BRACKETS || emphasis > MAX_EMPHASIS) return false
    }
    lineStart = end + 1
  }
  return true
}

/** A code fence line: up to 3 spaces, 3+ backticks or tildes, then its info string (CommonMark §4.5). */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

/**
 * The fence `line` opens (its marker), or null; a backtick fence's info string may not hold a backtick. The guard
 * and the block splitter (markdown-blocks.ts) read fences as the parser does, so both agree on what is code.
 */
export function fenceOpening(line: string): string | null {
  const m = FENCE.exec(line)
  if (!m) return null
  return m[1]![0] === '`' && m[2]!.includes('`') ? null : m[1]!
}

/** Whether `line` closes a fence opened with `open`: the same character, at least as long, nothing after it. */
export function fenceCloses(line: string, open: string): boolean {
  const m = FENCE.exec(line)
  return !!m && m[1]![0] === open[0] && m[1]!.length >= open.length && m[2]!.trim() === ''
}

/** How many block containers (`>`, `-`/`*`/`+` items, `1.`/`1)` items) a line opens before its content. */
function nesting(text: string, start: number, end: number): number {
  let depth = 0
  let i = start
  for (;;) {
    while (i < end && (text[i] === ' ' || text[i] === '\t')) i++
    if (i >= end) return depth
    const c = text[i]!
    if (c === '>') {
      depth++
      i++
      continue
    }
    if ((c === '-' || c === '*' || c === '+') && (text[i + 1] === ' ' || text[i + 1] === '\t')) {
      depth++
      i += 2
      continue
    }
    let j = i
    while (j < end && j - i < 9 && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++
    if (j > i && (text[j] === '.' || text[j] === ')') && (text[j + 1] === ' ' || text[j + 1] === '\t')) {
      depth++
      i = j + 2
      continue
    }
    return depth
  }
}
