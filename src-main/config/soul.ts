/**
 * `SOUL.md`: the profile's persona, slot #1 of the system prompt (upstream reads it from HERMES_HOME only,
 * never the working directory). Missing, empty or unreadable → no persona text; an oversized file is cut
 * at a line boundary with a marker so a pasted log can't crowd out the conversation. A file that looks like a
 * prompt injection is not loaded at all: the prompt gets a one-line [BLOCKED: …] notice naming what matched, as
 * upstream's does (its `context` scan). A leading BOM is dropped before the scan (upstream would block the file
 * for it; an editor's BOM is not an attack).
 */
import { join } from 'node:path'
import { scanForThreats } from '@shared/contract/threat-scan'
import { readFileIfExists } from '../files'

export const SOUL_MAX_CHARS = 20_000

export const soulPath = (home: string) => join(home, 'SOUL.md')

export function readSoul(home: string): string {
  let text: string | null
  try {
    text = readFileIfExists(soulPath(home))
  } catch {
    return '' // there but unreadable (a folder in its place): no persona, as upstream's loader gives none then
  }
  if (text === null) return ''
  // A BOM or a NUL (a binary file saved under the name) is not persona text.
  text = text
    .replace(/^\uFEFF/, '')
    .replaceAll('\u0000', '')
    .trim()
  const findings = scanForThreats(text, 'context')
  if (findings.length > 0)
    return `[BLOCKED: SOUL.md contained potential prompt injection (${findings.join(', ')}). Content not loaded.]`
  if (text.length <= SOUL_MAX_CHARS) return text
  const cut = text.lastIndexOf('\n', SOUL_MAX_CHARS)
  return `${text.slice(0, cut > SOUL_MAX_CHARS / 2 ? cut : SOUL_MAX_CHARS).trimEnd()}\n\n[SOUL.md truncated at ${SOUL_MAX_CHARS} characters]`
}
