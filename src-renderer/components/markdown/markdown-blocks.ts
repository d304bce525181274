/**
 * A reply cut into top-level Markdown blocks that parse the same apart as together, so each block can be rendered
 * once and kept (Markdown.tsx). A streamed reply is re-rendered on every delta: whole, a 18 KB report with a few
 * hundred blocks cost ~450 ms a delta by its end, quadratic over the stream; cut, a delta re-parses only the
 * block still growing, and the saved message that replaces the stream finds every block already rendered.
 *
 * A cut is made only at a blank line outside fenced code where CommonMark closes every open block anyway: not
 * before an indented line (a list item's next paragraph, indented code) nor before a list item (one loose list
 * must stay one list). Text whose meaning can cross blank lines elsewhere — link reference or footnote
 * definitions, HTML blocks that run to their end marker (comments, <pre>, <script>, <style>, <textarea>, <?, <!) —
 * is one block.
 */
/** Bodies shorter than this are one block: parsing them whole costs less than rendering many small trees. */
export const SPLIT_MIN_CHARS = 2_000

const CROSSES_BLANK_LINES =
  /^ {0,3}(\[[^\]\n]+\]:|<(!--|\?|![A-Za-z]|!\[CDATA\[|(pre|script|style|textarea)([\s>]|$)))/im
const LIST_ITEM = /^ {0,3}([-*+]|\d{1,9}[.)])([ \t]|$)/
/** A code fence line: up to 3 spaces, 3+ backticks or tildes, then its info string (CommonMark §4.5). */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

const isBlank = (line: string) => line.trim() === ''

/** The fence a line opens (its marker), or null; a backtick fence's info string may not hold a backtick. */
function opening(line: string): string | null {
  const m = FENCE.exec(line)
  if (!m) return null
  return m[1]![0] === '`' && m[2]!.includes('`') ? null : m[1]!
}

/** Whether `line` closes a fence opened with `open`: the same character, at least as long, nothing after it. */
function closes(line: string, open: string): boolean {
  const m = FENCE.exec(line)
  return !!m && m[1]![0] === open[0] && m[1]!.length >= open.length && m[2]!.trim() === ''
}

export function markdownBlocks(text: string): string[] {
  if (text.length < SPLIT_MIN_CHARS || CROSSES_BLANK_LINES.test(text)) return [text]
  const lines = text.split('\n')
  const blocks: string[] = []
  let start = 0 // the first line of the block being gathered
  let content = false // whether that block has a non-blank line yet
  let fence: string | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (fence !== null) {
      if (closes(line, fence)) fence = null
      continue
    }
    if (!isBlank(line)) {
      content = true
      fence = opening(line)
      continue
    }
    if (!content) continue
    let next = i + 1
    while (next < lines.length && isBlank(lines[next]!)) next++
    if (next >= lines.length) break
    const following = lines[next]!
    if (following[0] === ' ' || following[0] === '\t' || LIST_ITEM.test(following)) continue
    blocks.push(lines.slice(start, i).join('\n'))
    start = next
    i = next - 1
  }
  blocks.push(lines.slice(start).join('\n'))
  return blocks
}
