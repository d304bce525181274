/**
 * Session titles are cleaned the way upstream's `SessionDB.sanitize_title` cleans them (hermes-spec §1.8), in one
 * place for the store and the rename box: drop ASCII controls except whitespace, zero-width, line/paragraph
 * separators and bidi controls; then every whitespace run, tabs and newlines included, becomes one space (so "a\tb"
 * reads "a b", never "ab"); trimmed; empty is no title.
 */
// eslint-disable-next-line no-control-regex
const STRIP = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\uFFF9-\uFFFC]/g

export const MAX_TITLE_LENGTH = 100

/** The cleaned title, or null when nothing is left. Length is the caller's check (upstream raises past 100). */
export function cleanTitle(raw: string | null | undefined): string | null {
  if (raw == null) return null
  const clean = String(raw).replace(STRIP, '').replace(/\s+/g, ' ').trim()
  return clean === '' ? null : clean
}
