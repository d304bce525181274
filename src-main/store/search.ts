/**
 * Full-text search over `messages_fts`. User text is never passed to MATCH raw: it is rebuilt as a list of
 * quoted phrases (FTS5 syntax cannot leak through a quoted string), so any input yields hits or [] —
 * never an FTS syntax error.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'

export const MAX_FTS5_QUERY_CHARS = 2048
const MAX_TERMS = 32
const RECENT_WINDOW = 2000
const OPEN = '\uE000'
const CLOSE = '\uE001'
const WORDISH = /[\p{L}\p{N}]/u

export interface RawHit {
  messageId: number
  sessionId: string
  sessionTitle: string | null
  role: string
  timestamp: number
  snippet: Array<{ text: string; hit: boolean }>
}

/** Quoted phrases from balanced "..." pairs; an unbalanced quote is dropped; `word*` keeps prefix search. */
export function sanitizeFtsQuery(input: unknown): string | null {
  if (typeof input !== 'string') return null
  let text = input.slice(0, MAX_FTS5_QUERY_CHARS)
  if ((text.match(/"/g)?.length ?? 0) % 2 === 1) {
    const last = text.lastIndexOf('"')
    text = text.slice(0, last) + ' ' + text.slice(last + 1)
  }
  const terms: string[] = []
  const re = /"([^"]*)"(\*?)|(\S+)/g
  for (let m = re.exec(text); m && terms.length < MAX_TERMS; m = re.exec(text)) {
    const phrase = m[1] ?? m[3]
    let prefix = m[2] === '*'
    let body = phrase
    if (m[3] !== undefined && body.endsWith('*')) { body = body.replace(/\*+$/, ''); prefix = true }
    body = body.replace(/"/g, '')
    if (!WORDISH.test(body)) continue // pure punctuation tokenizes to nothing: an empty phrase matches nothing
    terms.push(`"${body}"${prefix ? '*' : ''}`)
  }
  return terms.length ? terms.join(' ') : null
}

export function splitSnippet(s: string): Array<{ text: string; hit: boolean }> {
  const parts: Array<{ text: string; hit: boolean }> = []
  let hit = false
  for (const chunk of s.split(/([\uE000\uE001])/)) {
    if (chunk === OPEN) hit = true
    else if (chunk === CLOSE) hit = false
    else if (chunk) parts.push({ text: chunk, hit })
  }
  return parts
}

export function searchMessages(db: Database.Database, query: unknown, limit = 50): RawHit[] {
  const match = sanitizeFtsQuery(query)
  if (!match) return []
  const n = Math.max(1, Math.min(200, Math.floor(Number(limit) || 50)))
  try {
    // bm25 over every match is O(matches): a common word in 500k messages takes ~1 s. Rank only the most
    // recent RECENT_WINDOW matches (FTS5 walks rowids in order and stops), then build snippets for the page.
    const ids = stmt(db, `SELECT id FROM (SELECT rowid AS id, rank AS r FROM messages_fts WHERE messages_fts MATCH ?
        ORDER BY rowid DESC LIMIT ${RECENT_WINDOW}) ORDER BY r LIMIT ?`).pluck().all(match, n) as number[]
    if (ids.length === 0) return []
    // One `rowid = ?` probe per hit: FTS5 seeks each term's doclist instead of iterating every match.
    const snip = stmt(db, `SELECT snippet(messages_fts, -1, '${OPEN}', '${CLOSE}', '…', 16) FROM messages_fts
        WHERE messages_fts MATCH ? AND rowid = ?`).pluck()
    const snippets = new Map(ids.map((id) => [id, snip.get(match, id) as string | null]))
    const meta = new Map((stmt(db, `SELECT m.id, m.session_id, m.role, m.timestamp, s.title FROM messages m
        LEFT JOIN sessions s ON s.id = m.session_id WHERE m.id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as Array<Record<string, unknown>>).map((r) => [Number(r.id), r]))
    return ids.flatMap((id) => {
      const r = meta.get(id)
      if (!r) return []
      return [{
        messageId: id, sessionId: String(r.session_id), sessionTitle: (r.title as string | null) ?? null,
        role: String(r.role), timestamp: Number(r.timestamp) || 0, snippet: splitSnippet(String(snippets.get(id) ?? ''))
      }]
    })
  } catch {
    // A legacy/foreign messages_fts shape or a corrupt index: search degrades to nothing, the host stays up.
    return []
  }
}
