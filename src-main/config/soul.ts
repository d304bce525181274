/**
 * `SOUL.md`: the profile's persona, slot #1 of the system prompt (upstream reads it from HERMES_HOME only,
 * never the working directory). Missing, empty or unreadable → no persona text; an oversized file is cut
 * at a line boundary with a marker so a pasted log can't crowd out the conversation.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const SOUL_MAX_CHARS = 20_000

export const soulPath = (home: string) => join(home, 'SOUL.md')

export function readSoul(home: string): string {
  let text: string
  try {
    text = readFileSync(soulPath(home), 'utf8')
  } catch {
    return ''
  }
  // A BOM or a NUL (a binary file saved under the name) is not persona text.
  text = text
    .replace(/^\uFEFF/, '')
    .replaceAll('\u0000', '')
    .trim()
  if (text.length <= SOUL_MAX_CHARS) return text
  const cut = text.lastIndexOf('\n', SOUL_MAX_CHARS)
  return `${text.slice(0, cut > SOUL_MAX_CHARS / 2 ? cut : SOUL_MAX_CHARS).trimEnd()}\n\n[SOUL.md truncated at ${SOUL_MAX_CHARS} characters]`
}
