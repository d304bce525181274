/**
 * `SOUL.md`: the profile's persona, slot #1 of the system prompt (upstream reads it from HERMES_HOME only,
 * never the working directory). Missing, empty or unreadable → no persona text; an oversized file keeps its head
 * and its tail around a marker, as upstream's loader cuts it (the limit scales with the model's context window, or
 * config.yaml's context_file_max_chars), so a pasted log can't crowd out the conversation. A file that looks like a
 * prompt injection is not loaded at all: the prompt gets a one-line [BLOCKED: …] notice naming what matched, as
 * upstream's does (its `context` scan). A leading BOM is dropped before the scan (upstream would block the file
 * for it; an editor's BOM is not an attack).
 */
import { join } from 'node:path'
import { scanForThreats } from '@shared/contract/threat-scan'
import { readFileIfExists } from '../files'
import type { RawConfig } from './load-config'

/** Upstream's floor for a context file, and its limit when the model's context length is unknown. */
export const SOUL_MAX_CHARS = 20_000
const CEILING = 500_000

/**
 * Upstream's limit: config.yaml's context_file_max_chars when a positive number (Python's int(): a float truncates,
 * `true` is 1, infinity fails over to the next rule), else 6% of the context window at 4 characters a token, kept
 * between the floor and the ceiling.
 */
export function soulMaxChars(contextLength?: number | null, config?: RawConfig): number {
  const pinned = config?.context_file_max_chars
  if (pinned === true) return 1
  if (typeof pinned === 'number' && pinned > 0 && Number.isFinite(pinned)) return Math.trunc(pinned)
  if (typeof contextLength !== 'number' || !Number.isInteger(contextLength) || contextLength <= 0) return SOUL_MAX_CHARS
  return Math.max(SOUL_MAX_CHARS, Math.min(Math.trunc(contextLength * 4 * 0.06), CEILING))
}

export const soulPath = (home: string) => join(home, 'SOUL.md')

export interface SoulLimits {
  /** The model's context window in tokens (the resolved runtime's contextWindow: config's, else upstream's fallback). */
  contextLength?: number | null
  config?: RawConfig
}

export function readSoul(home: string, limits: SoulLimits = {}): string {
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
  return cutSoul(text, soulMaxChars(limits.contextLength, limits.config), soulPath(home))
}

/**
 * Upstream's cut: 70% of the limit from the head and 20% from the tail, counted in code points as Python counts them
 * (a tail of 0 keeps the whole text, as Python's `s[-0:]` does). The marker between them is Caduceus's own words.
 */
function cutSoul(text: string, max: number, path: string): string {
  const points = Array.from(text)
  if (points.length <= max) return text
  const head = Math.trunc(max * 0.7)
  const tail = Math.trunc(max * 0.2)
  const marker =
    `\n\n[SOUL.md is ${points.length} characters, over the ${max} allowed here: its first ${head} and last ${tail} ` +
    `are kept and the part between them is left out. The whole file is at ${path}.]\n\n`
  return points.slice(0, head).join('') + marker + points.slice(-tail).join('')
}
