/**
 * A stored user message with images reads as upstream's agent flush wrote it: its text parts one per line, each image
 * as a "[screenshot]" line. The transcript shows those lines as image chips; every other line stays text.
 */
import { SCREENSHOT_PLACEHOLDER } from '@shared/contract'

export type BodySegment = { kind: 'text'; text: string } | { kind: 'image' }

/** The message's text split around its "[screenshot]" lines; null when it has none (rendered as plain text). */
export function imageSegments(content: string): BodySegment[] | null {
  const lines = content.split('\n')
  if (!lines.includes(SCREENSHOT_PLACEHOLDER)) return null
  const out: BodySegment[] = []
  let text: string[] = []
  const flush = () => {
    if (text.length) out.push({ kind: 'text', text: text.join('\n') })
    text = []
  }
  for (const line of lines) {
    if (line === SCREENSHOT_PLACEHOLDER) {
      flush()
      out.push({ kind: 'image' })
    } else text.push(line)
  }
  flush()
  return out
}
