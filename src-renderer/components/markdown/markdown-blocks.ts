/**
 * A reply cut into top-level Markdown blocks that parse the same apart as together, so each block can be rendered
 * once and kept (Markdown.tsx). A streamed reply is re-rendered on every delta: whole, a 18 KB report with a few
 * hundred blocks cost ~450 ms a delta by its end, quadratic over the stream; cut, a delta re-parses only the
 * block still growing, and the saved message that replaces the stream finds every block already rendered.
 *
 * A cut is made only at a blank line outside fenced code where CommonMark closes every open block anyway: not
 * before an indented line (a list item's next paragraph, indented code) nor before a list item (one loose list
 * must stay one list), and only once the line after it is whole (its first characters decide). Text whose meaning
 * can cross blank lines elsewhere — link reference or footnote definitions, HTML blocks that run to their end marker
 * (comments, <pre>, <script>, <style>, <textarea>, <?, <!) — is one block.
 */
import { fenceCloses, fenceOpening } from './markdown-guard'

/** Bodies shorter than this are one block: parsing them whole costs less than rendering many small trees. */
const SPLIT_MIN_CHARS = 2_000

const CROSSES_BLANK_LINES =
  /^ {0,3}(\[[^\]\n]+\]:|<(!--|\?|![A-Za-z]|!\[CDATA\[|(pre|script|style|textarea)([\s>]|$)))/im
const LIST_ITEM = /^ {0,3}([-*+]|\d{1,9}[.)])([ \t]|$)/
const isBlank = (line: string) => line.trim() === ''

interface Split {
  text: string
  blocks: string[]
  /** Where the last block starts: the only one a longer text can change */
  lastStart: number
}

/** The splits of the last few texts: a stream's next delta extends one of them. */
const recent: Split[] = []
const RECENT_MAX = 4

/**
 * `text`'s blocks. A streamed body only grows, so when `text` extends one split recently, only its last block and
 * what came after it are read again (the blocks before it are the same strings, so their cache keys hash once):
 * a delta costs what it added, not the whole body.
 */
export function markdownBlocks(text: string): string[] {
  if (text.length < SPLIT_MIN_CHARS) return [text]
  const prev = recent.find((p) => p.blocks.length > 1 && text.length > p.text.length && text.startsWith(p.text))
  const tail = prev ? scan(text, prev.lastStart) : scan(text, 0)
  const split: Split = !tail
    ? { text, blocks: [text], lastStart: 0 }
    : prev
      ? { text, blocks: [...prev.blocks.slice(0, -1), ...tail.blocks], lastStart: tail.lastStart }
      : { text, ...tail }
  if (prev) recent.splice(recent.indexOf(prev), 1)
  recent.push(split)
  if (recent.length > RECENT_MAX) recent.shift()
  return split.blocks
}

/** The blocks of `text` from `from` (a block's start) on, or null when that part keeps the whole text one block. */
function scan(text: string, from: number): { blocks: string[]; lastStart: number } | null {
  if (CROSSES_BLANK_LINES.test(from ? text.slice(from) : text)) return null
  const blocks: string[] = []
  let start = from // where the block being gathered starts
  let content = false // whether that block has a non-blank line yet
  let fence: string | null = null
  for (let pos = from; pos <= text.length;) {
    let end = text.indexOf('\n', pos)
    if (end < 0) end = text.length
    const line = text.slice(pos, end)
    if (fence !== null) {
      if (fenceCloses(line, fence)) fence = null
    } else if (!isBlank(line)) {
      content = true
      fence = fenceOpening(line)
    } else if (content) {
      // the next non-blank line: a cut goes before it, unless it continues what this blank line interrupts
      let next = end + 1
      let nextEnd = next
      while (next <= text.length) {
        nextEnd = text.indexOf('\n', next)
        if (nextEnd < 0) nextEnd = text.length
        if (!isBlank(text.slice(next, nextEnd))) break
        next = nextEnd + 1
      }
      // none, or one still being written (no newline yet: a stream may make it a list item): no cut yet
      if (next > text.length || nextEnd === text.length) break
      const following = text.slice(next, nextEnd)
      if (following[0] !== ' ' && following[0] !== '\t' && !LIST_ITEM.test(following)) {
        blocks.push(text.slice(start, pos - 1))
        start = next
        pos = next
        continue
      }
    }
    pos = end + 1
  }
  blocks.push(text.slice(start))
  return { blocks, lastStart: start }
}
