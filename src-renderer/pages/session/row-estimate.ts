import type { Message } from '@shared/contract'

/**
 * Height a transcript row will likely take before it is measured (px, at the usual width). Close guesses keep
 * the first frame to the rows that fit the screen (a flat 72 px laid out three times too many rows of a long
 * Markdown reply) and the scrollbar honest; a wrong guess only costs a correction once the row is measured.
 */
export function estimateRowHeight(m: Message | undefined): number {
  if (!m) return 72
  let h = known.get(m)
  if (h === undefined) known.set(m, (h = estimate(m)))
  return h
}

// the virtualizer asks for every row whenever its measurements are rebuilt: work it out once per message
const known = new WeakMap<Message, number>()

function estimate(m: Message): number {
  if (m.role === 'tool' || /delegat|notice|process_complete/.test(m.displayKind ?? '')) return 44
  const text = m.content ?? ''
  let h = 36 + (m.reasoning ? 36 : 0) + (m.toolCalls?.length ?? 0) * 36
  let start = 0
  let fences = 0
  while (start <= text.length) {
    const end = text.indexOf('\n', start)
    const len = (end < 0 ? text.length : end) - start
    if (len > 0) {
      h += 21 * (1 + Math.floor(len / 110)) // long lines wrap
      if (text.startsWith('```', start)) fences++
    }
    if (end < 0) break
    start = end + 1
  }
  return h + Math.ceil(fences / 2) * 36 // a code block's header bar
}
