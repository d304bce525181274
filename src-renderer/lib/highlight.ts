/** Words worth marking from a free-text search query (FTS operators and quotes dropped). */
export function searchTerms(query: string): string[] {
  const words = query
    .replace(/["*()^:]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length >= 2 && !/^(AND|OR|NOT|NEAR)$/.test(w))
  return [...new Set(words.map((w) => w.toLowerCase()))].slice(0, 16)
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Split `text` into plain and matching parts, case-insensitively; never builds HTML. */
export function highlightParts(text: string, terms: string[]): Array<{ text: string; hit: boolean }> {
  if (!terms.length || !text) return [{ text, hit: false }]
  const re = new RegExp(
    terms
      .map(escape)
      .sort((a, b) => b.length - a.length)
      .join('|'),
    'gi'
  )
  const out: Array<{ text: string; hit: boolean }> = []
  let last = 0
  for (const m of text.matchAll(re)) {
    if (!m[0]) continue
    if (m.index > last) out.push({ text: text.slice(last, m.index), hit: false })
    out.push({ text: m[0], hit: true })
    last = m.index + m[0].length
  }
  if (last < text.length) out.push({ text: text.slice(last), hit: false })
  return out
}
