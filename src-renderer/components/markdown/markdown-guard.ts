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
    const marker = fenceMarker(text, lineStart, end)
    if (fence !== null) {
      if (marker !== null && marker.startsWith(fence)) fence = null
    } else if (marker !== null) fence = marker
    else {
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

/** The fence a line opens or closes (``` or ~~~ and longer, after up to 3 spaces), or null. */
function fenceMarker(text: string, start: number, end: number): string | null {
  let i = start
  while (i < end && i - start < 3 && text[i] === ' ') i++
  const ch = text[i]
  if (ch !== '`' && ch !== '~') return null
  let j = i
  while (j < end && text[j] === ch) j++
  return j - i >= 3 ? text.slice(i, j) : null
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
