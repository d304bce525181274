/**
 * Text helpers of the holographic store: query tokens (stopwords dropped), entity extraction and the
 * auto-extract sentence patterns (hermes-memory-providers.md §2).
 */
const STOPWORDS = new Set(
  `a an and are as at be but by can could did do does for from had has have how i if in into is it its
me my of on or our please should so than that the their them then there these they this to us was we were what when where which
who whom why will with would you your about any some all just also not no yes tell know remember recall`.split(/\s+/)
)

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((t) => t.length > 1 && !STOPWORDS.has(t))
}

/**
 * FTS5 MATCH text: the query's tokens OR-joined, each quoted (FTS5's implicit AND kills recall on
 * natural-language questions; quoting keeps operators and punctuation from breaking the syntax).
 */
export function ftsQuery(text: string): string | null {
  const unique = [...new Set(tokens(text))]
  return unique.length ? unique.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ') : null
}

export function jaccard(a: string[], b: string[]): number {
  const A = new Set(a)
  const B = new Set(b)
  if (A.size === 0 || B.size === 0) return 0
  let both = 0
  for (const t of A) if (B.has(t)) both++
  return both / (A.size + B.size - both)
}

export interface ExtractedEntity {
  name: string
  aliases: string[]
}

/** Capitalised multi-word names, quoted strings, and "X aka Y" / "X also known as Y". */
export function extractEntities(text: string): ExtractedEntity[] {
  const out = new Map<string, ExtractedEntity>()
  const add = (name: string, aliases: string[] = []) => {
    const n = name.trim()
    if (n.length < 2) return
    const key = n.toLowerCase()
    const e = out.get(key) ?? { name: n, aliases: [] }
    for (const a of aliases) if (a && !e.aliases.includes(a)) e.aliases.push(a)
    out.set(key, e)
  }
  // "Ada Lovelace aka Countess", "Grace also known as Amazing Grace": the alias is one word or a capitalised run.
  const NAME = '[\\p{Lu}][\\p{L}\\p{N}]+(?:\\s+[\\p{Lu}][\\p{L}\\p{N}]+)*'
  for (const m of text.matchAll(new RegExp(`\\b(${NAME})\\s+(?:aka|also known as)\\s+(${NAME}|[\\p{L}\\p{N}]+)`, 'gu')))
    add(m[1]!, [m[2]!])
  for (const m of text.matchAll(/\b[\p{Lu}][\p{L}\p{N}]+(?:\s+[\p{Lu}][\p{L}\p{N}]+)+/gu)) add(m[0])
  for (const m of text.matchAll(/"([^"\n]{2,80})"|(?<![\p{L}\p{N}])'([^'\n]{2,80})'(?![\p{L}\p{N}])/gu))
    add((m[1] ?? m[2])!)
  return [...out.values()]
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
