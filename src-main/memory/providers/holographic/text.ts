/**
 * Text helpers of the holographic store: query tokens (stopwords dropped), entity extraction and the
 * auto-extract rules (hermes-memory-providers.md §2).
 */
import { pyLen } from '@shared/contract/py-text'
import { PY_SPACE, pySplit, stripEnds } from './hrr'

// English function words dropped before the FTS5 OR-expansion (the same set upstream drops, so both
// sides match the same candidates for the same question).
const STOPWORDS = new Set(
  `a about above after again all am an and any are as at be because been before being between both but by
can could did do does doing don down during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself yourselves`.split(/\s+/)
)

const TOKEN_PUNCT = '.,;:!?"\'()[]{}#@<>'

/** Re-ranking tokens: lowercased whitespace words, punctuation stripped from both ends, as a set. */
export function tokens(text: string): Set<string> {
  const out = new Set<string>()
  for (const w of pySplit((text ?? '').toLowerCase())) {
    const t = stripEnds(w, TOKEN_PUNCT)
    if (t) out.add(t)
  }
  return out
}

/**
 * FTS5 MATCH text: each significant word (stopwords and one-letter words dropped, FTS5 operator
 * characters removed) quoted and OR-joined, because FTS5's implicit AND kills recall on questions.
 * Nothing significant left → the raw query, which matches little but never breaks the syntax.
 */
export function ftsQuery(text: string): string {
  if (!text) return ''
  const out: string[] = []
  for (const w of pySplit(text.toLowerCase())) {
    const t = stripEnds(w, TOKEN_PUNCT).replace(/["()*^:\-+]/g, '')
    if (t.length < 2 || STOPWORDS.has(t)) continue
    out.push(`"${t}"`)
  }
  return out.length ? out.join(' OR ') : text
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0
  let both = 0
  for (const t of a) if (b.has(t)) both++
  return both / (a.size + b.size - both)
}

// Word characters and boundaries as Python's Unicode `\w` / `\b` see them (JS's are ASCII-only).
const W = '[\\p{L}\\p{N}_]'
// One character of Python's `\s` (the run class without its `+`).
const S = PY_SPACE.slice(0, -1)
const CAPITALISED = new RegExp(`(?<!${W})([A-Z][a-z]+(?:${S}+[A-Z][a-z]+)+)(?!${W})`, 'gu')
// Starts only where a run of whitespace-joined words begins: from every other word (or letter) the left side rescanned
// the rest of the run (quadratic on a long text of words). A match from inside a run means one from its first word.
const AKA = new RegExp(
  `(?=${W})(?<!${W}${S}*)(${W}+(?:${S}+${W}+)*)${S}+(?:aka|also known as)${S}+(${W}+(?:${S}+${W}+)*)`,
  'giu'
)

/**
 * Entity names in first-seen order, deduplicated case-insensitively: capitalised multi-word runs,
 * double- then single-quoted strings, then both sides of "X aka Y" / "X also known as Y". These are
 * exactly the names upstream extracts, because they feed each fact's HRR vector.
 */
export function extractEntities(text: string): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  const add = (name: string | undefined) => {
    const n = (name ?? '').trim()
    if (n && !seen.has(n.toLowerCase())) {
      seen.add(n.toLowerCase())
      out.push(n)
    }
  }
  for (const m of text.matchAll(CAPITALISED)) add(m[1])
  for (const m of text.matchAll(/"([^"]+)"/g)) add(m[1])
  for (const m of text.matchAll(/'([^']+)'/g)) add(m[1])
  for (const m of text.matchAll(AKA)) {
    add(m[1])
    add(m[2])
  }
  return out
}

// Upstream's auto-extract rules are Python regexes with re.IGNORECASE over str, so each piece is spelled as
// Python reads it: `\s` is str.isspace() (JS's adds U+FEFF and lacks U+001C–U+001F and U+0085), `.` stops only
// at '\n', `\b` is a Unicode word boundary, and a case-insensitive letter also matches what Python folds onto
// it (İ and ı for i, the Kelvin sign for k, long s for s).
const FOLDS: Record<string, string> = { i: 'iIİı', k: 'kK\u212a', s: 'sS\u017f' }
const ci = (word: string) =>
  [...word].map((c) => (/[a-z]/.test(c) ? `[${FOLDS[c] ?? c + c.toUpperCase()}]` : c)).join('')
const alt = (words: string[]) => `(?:${words.map(ci).join('|')})`
const rule = (...parts: string[]) => new RegExp(`(?<!${W})${parts.join(PY_SPACE)}${PY_SPACE}[^\\n]`, 'u')

const PREFERENCE = [
  rule(ci('i'), alt(['prefer', 'like', 'love', 'use', 'want', 'need'])),
  // "favorite" only, and exactly one word before "is" (upstream's rule: "my favourite colour is" and
  // "my favorite text editor is" are not preferences there).
  rule(ci('my'), alt(['favorite', 'preferred', 'default']), `${W}+`, ci('is')),
  rule(ci('i'), alt(['always', 'never', 'usually']))
]
// "we decided to …": the optional "to" does not change which messages match.
const DECISION = [
  rule(ci('we'), alt(['decided', 'agreed', 'chose'])),
  rule(ci('the'), ci('project'), alt(['uses', 'needs', 'requires']))
]

const MIN_CHARS = 10
const MAX_CHARS = 400

/** The first `n` code points (Python's `s[:n]`), without splitting a surrogate pair. */
function firstCodePoints(s: string, n: number): string {
  let i = 0
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1
  }
  return s.slice(0, i)
}

/**
 * The facts upstream's on_session_end stores for one user message when auto_extract is on: the whole message
 * (its first 400 characters), once as `user_pref` if a preference rule matches and once as `project` if a
 * decision rule does; the second add of the same text keeps the first's row, as upstream's UNIQUE content does.
 * Messages shorter than 10 characters are skipped.
 */
export function extractFacts(text: string): Array<{ content: string; category: 'user_pref' | 'project' }> {
  if (pyLen(text) < MIN_CHARS) return []
  const content = firstCodePoints(text, MAX_CHARS)
  const out: Array<{ content: string; category: 'user_pref' | 'project' }> = []
  if (PREFERENCE.some((re) => re.test(text))) out.push({ content, category: 'user_pref' })
  if (DECISION.some((re) => re.test(text))) out.push({ content, category: 'project' })
  return out
}
