/**
 * Text helpers of the holographic store: query tokens (stopwords dropped), entity extraction and the
 * auto-extract sentence patterns (hermes-memory-providers.md §2).
 */
import { stripEnds } from './hrr'

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
  for (const w of (text ?? '').toLowerCase().split(/\s+/)) {
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
  for (const w of text.toLowerCase().split(/\s+/)) {
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
const CAPITALISED = new RegExp(`(?<!${W})([A-Z][a-z]+(?:\\s+[A-Z][a-z]+)+)(?!${W})`, 'gu')
// Starts only where a run of whitespace-joined words begins: from every other word (or letter) the left side rescanned
// the rest of the run (quadratic on a long text of words). A match from inside a run means one from its first word.
const AKA = new RegExp(
  `(?=${W})(?<!${W}\\s*)(${W}+(?:\\s+${W}+)*)\\s+(?:aka|also known as)\\s+(${W}+(?:\\s+${W}+)*)`,
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

const PREFERENCE = [
  /\bI (?:prefer|like|love|use|want|need)\b[^.!?\n]*/i,
  /\bmy (?:favou?rite|preferred|default) [^.!?\n]+? is\b[^.!?\n]*/i,
  /\bI (?:always|never|usually)\b[^.!?\n]*/i
]
const DECISION = [/\bwe (?:decided|agreed|chose)\b[^.!?\n]*/i, /\bthe project (?:uses|needs|requires)\b[^.!?\n]*/i]

/** Preference and decision sentences from user text (auto_extract at session end). */
export function extractFacts(text: string): Array<{ content: string; category: 'user_pref' | 'project' }> {
  const out: Array<{ content: string; category: 'user_pref' | 'project' }> = []
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const s = sentence.trim()
    if (!s || s.length > 400) continue
    if (PREFERENCE.some((re) => re.test(s))) out.push({ content: s, category: 'user_pref' })
    else if (DECISION.some((re) => re.test(s))) out.push({ content: s, category: 'project' })
  }
  return out
}
