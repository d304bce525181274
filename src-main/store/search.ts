/**
 * Search that finds what users type, in whatever FTS layout the home has (shape.ts):
 * - words through the home's word index (`messages_fts`, v30 external-content or legacy inline);
 * - CJK and any substring of 3+ characters through the trigram index (`messages_fts_trigram`);
 * - shorter terms (e.g. 東京) or a home without a trigram index: a bounded `instr` scan over the most recent
 *   visible rows.
 * Results of the indexes are unioned, filtered to visible rows (hidden = `active = 0 AND compacted = 0`,
 * i.e. rewound), newest first. Snippets are cut from each hit's own row. Titles match too.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import type { HomeShape } from './shape'
import { parseQuery, positiveTerms, toInstr, toMatch, type Node, type Term } from './search-query'

export { MAX_FTS5_QUERY_CHARS } from './search-query'

const WINDOW = 2000
const SCAN_ROWS = 20_000
const VISIBLE = '(m.active = 1 OR m.compacted = 1)'

export interface RawHit {
  messageId: number
  sessionId: string
  sessionTitle: string | null
  role: string
  timestamp: number
  snippet: Array<{ text: string; hit: boolean }>
}
export interface TitleHit {
  sessionId: string
  title: string
}
export interface SearchOutcome {
  hits: RawHit[]
  titles: TitleHit[]
  message?: string
}

/** Snippet parts from `text` around the first occurrence of any term (case-insensitive). */
export function snippetOf(text: string, terms: Term[], radius = 60): Array<{ text: string; hit: boolean }> {
  const lower = text.toLowerCase()
  const needles = [...new Set(terms.map((t) => t.text.toLowerCase()).filter(Boolean))]
  let first = -1
  for (const n of needles) {
    const at = lower.indexOf(n)
    if (at >= 0 && (first < 0 || at < first)) first = at
  }
  const start = first < 0 ? 0 : Math.max(0, first - radius)
  const end = Math.min(text.length, (first < 0 ? 0 : first) + radius * 2)
  const slice = text.slice(start, end)
  const sl = slice.toLowerCase()
  const marks: Array<[number, number]> = []
  for (const n of needles)
    for (let at = sl.indexOf(n); at >= 0; at = sl.indexOf(n, at + n.length)) marks.push([at, at + n.length])
  marks.sort((a, b) => a[0] - b[0])
  const parts: Array<{ text: string; hit: boolean }> = []
  if (start > 0) parts.push({ text: '…', hit: false })
  let pos = 0
  for (const [a, b] of marks) {
    if (a < pos) continue
    if (a > pos) parts.push({ text: slice.slice(pos, a), hit: false })
    parts.push({ text: slice.slice(a, b), hit: true })
    pos = b
  }
  if (pos < slice.length) parts.push({ text: slice.slice(pos), hit: false })
  if (end < text.length) parts.push({ text: '…', hit: false })
  return parts
}

/** Legacy API kept for callers that split FTS5 snippet() output. */
export function splitSnippet(s: string): Array<{ text: string; hit: boolean }> {
  const parts: Array<{ text: string; hit: boolean }> = []
  let hit = false
  for (const chunk of s.split(/([\uE000\uE001])/)) {
    if (chunk === '\uE000') hit = true
    else if (chunk === '\uE001') hit = false
    else if (chunk) parts.push({ text: chunk, hit })
  }
  return parts
}

const chars = (s: string) => [...s].length

function ftsIds(db: Database.Database, table: string, match: string, n: number): number[] {
  // FTS5 streams rowids newest-first (ORDER BY rowid DESC is native to it); each is checked for visibility
  // by primary key and the walk stops at the page size, or at WINDOW matches when most are hidden.
  return stmt(
    db,
    `SELECT m.id FROM (SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ${WINDOW}) f
      CROSS JOIN messages m ON m.id = f.id WHERE ${VISIBLE} LIMIT ?`
  )
    .pluck()
    .all(match, n) as number[]
}

function scanIds(db: Database.Database, tree: Node, n: number): number[] {
  const params: string[] = []
  const cond = toInstr(tree, "m.content || ' ' || COALESCE(m.tool_name, '')", params)
  return stmt(
    db,
    `SELECT m.id FROM (SELECT id FROM messages ORDER BY id DESC LIMIT ${SCAN_ROWS}) r JOIN messages m ON m.id = r.id
      WHERE ${VISIBLE} AND ${cond} ORDER BY m.id DESC LIMIT ?`
  )
    .pluck()
    .all(...params, n) as number[]
}

export function searchMessages(db: Database.Database, shape: HomeShape, query: unknown, limit = 50): SearchOutcome {
  const parsed = parseQuery(query)
  if (!parsed.ok) return { hits: [], titles: [], ...(parsed.message ? { message: parsed.message } : {}) }
  const n = Math.max(1, Math.min(200, Math.floor(Number(limit) || 50)))
  const { tree, terms } = parsed
  const ids = new Set<number>()
  const problems: string[] = []
  const attempt = (what: string, fn: () => number[]) => {
    try {
      for (const id of fn()) ids.add(id)
    } catch (err) {
      problems.push(`${what}: ${(err as Error).message}`)
    }
  }
  if (shape.fts !== 'none') attempt('word index', () => ftsIds(db, 'messages_fts', toMatch(tree), n))
  const allLong = terms.every((t) => chars(t.text) >= 3)
  if (shape.trigram !== 'none' && allLong)
    attempt('substring index', () => ftsIds(db, 'messages_fts_trigram', toMatch(tree, true), n))
  if (!allLong || shape.trigram === 'none') attempt('scan', () => scanIds(db, tree, n))

  const page = [...ids].sort((a, b) => b - a).slice(0, n)
  const highlight = positiveTerms(tree)
  let hits: RawHit[] = []
  if (page.length) {
    const rows = stmt(
      db,
      `SELECT m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_name, m.tool_calls, s.title FROM messages m
        LEFT JOIN sessions s ON s.id = m.session_id WHERE m.id IN (SELECT value FROM json_each(?))`
    ).all(JSON.stringify(page)) as Array<Record<string, unknown>>
    const byId = new Map(rows.map((r) => [Number(r.id), r]))
    hits = page.flatMap((id) => {
      const r = byId.get(id)
      if (!r) return []
      const own = [r.content, r.tool_name, r.tool_calls].filter((v): v is string => typeof v === 'string' && v !== '')
      const lowerTerms = highlight.map((t) => t.text.toLowerCase())
      const text = own.find((v) => lowerTerms.some((t) => v.toLowerCase().includes(t))) ?? own[0] ?? ''
      return [
        {
          messageId: id,
          sessionId: String(r.session_id),
          sessionTitle: (r.title as string | null) ?? null,
          role: String(r.role),
          timestamp: Number(r.timestamp) || 0,
          snippet: snippetOf(text, highlight)
        }
      ]
    })
  }
  let titles: TitleHit[] = []
  try {
    const params: string[] = []
    const cond = toInstr(tree, 's.title', params)
    titles = (
      stmt(
        db,
        `SELECT s.id, s.title FROM sessions s WHERE s.title IS NOT NULL AND ${cond}
        ORDER BY COALESCE(s.last_activity_at, s.started_at) DESC LIMIT ?`
      ).all(...params, n) as Array<{ id: string; title: string }>
    ).map((r) => ({ sessionId: r.id, title: r.title }))
  } catch (err) {
    problems.push(`titles: ${(err as Error).message}`)
  }
  // A broken index degrades to what the others found; only when everything failed does the user hear why.
  if (hits.length === 0 && titles.length === 0 && problems.length)
    return { hits, titles, message: `Search is unavailable here (${problems[0]})` }
  return { hits, titles }
}
