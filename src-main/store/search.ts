/**
 * Search with FTS5's query language (search-query.ts) in whatever FTS layout the home has (shape.ts); which
 * index or scan answers each term is search-match.ts. Hits newest first, snippets cut from each hit's own row,
 * every matching session counted, titles match too, and the fallback used is said in the result.
 */
import type Database from 'better-sqlite3'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { messages, sessions } from './schema'
import { displayContent } from './content-codec'
import type { HomeShape } from './shape'
import { parseQuery, positiveTerms, toInstr, type Term } from './search-query'
import {
  listed,
  matchRows,
  matchedAsSubstring,
  sessionConditions,
  type Matches,
  type SearchFilters,
  type ShortRecheck
} from './search-match'
import { chainTips } from './lineage'
import { ChainCopies } from './search-chain'
import { foldCase } from './fold'
import { num } from './util'
import { errorMessage } from '@shared/contract/errors'

type SessionColumns = typeof sessions.$inferSelect

export { MAX_FTS5_QUERY_CHARS } from './search-query'
export type { SearchFilters } from './search-match'

export interface RawHit {
  messageId: number
  sessionId: string
  sessionTitle: string | null
  role: string
  timestamp: number
  snippet: Array<{ text: string; hit: boolean }>
  /** The tip of the compression chain this hit's session is an earlier segment of (results group under it). */
  chainId?: string
}
export interface TitleHit {
  sessionId: string
  title: string
}
export interface SearchOutcome {
  hits: RawHit[]
  titles: TitleHit[]
  /** Every matching session with its number of matching messages. */
  sessions?: Map<string, { hits: number; title: string | null }>
  message?: string
  /** Which terms a fallback answered (search-match.ts). */
  fallback?: string
}

/** A character FTS5's unicode61 tokenizer keeps inside a word (letters, digits, their marks, private use). */
const WORD_CHAR = /[\p{L}\p{N}\p{M}\p{Co}]/u
const wordCharBefore = (s: string, at: number) => {
  if (at <= 0) return false
  const cp = s.codePointAt(at - 1)!
  // the preceding character may be the low half of a surrogate pair
  const ch = cp >= 0xdc00 && cp <= 0xdfff && at >= 2 ? String.fromCodePoint(s.codePointAt(at - 2)!) : s[at - 1]!
  return WORD_CHAR.test(ch)
}
const wordCharAt = (s: string, at: number) => at < s.length && WORD_CHAR.test(String.fromCodePoint(s.codePointAt(at)!))

/**
 * Where `needle` matches in `folded` as the search matched it: anywhere for substring text (CJK, emoji, symbols);
 * for a word or phrase, only at word boundaries — `heat*` starts a word (marking the whole word: heater, not the
 * "heat" inside "theater"), `heat` is the whole word.
 */
function* occurrences(folded: string, needle: { text: string; word: boolean; prefix: boolean }) {
  const n = needle.text
  for (let at = folded.indexOf(n); at >= 0; at = folded.indexOf(n, at + 1)) {
    let end = at + n.length
    if (needle.word) {
      if (wordCharBefore(folded, at)) continue
      if (needle.prefix) while (wordCharAt(folded, end)) end += folded.codePointAt(end)! > 0xffff ? 2 : 1
      else if (wordCharAt(folded, end)) continue
    }
    yield [at, end] as [number, number]
  }
}

/**
 * Snippet parts from `text` around the first occurrence of any term, matched caseless as the search matches. The
 * folded text is searched and its positions used on `text`: `foldCase` keeps every character's length, where
 * `toLowerCase` made İ two characters and shifted every later highlight.
 */
export function snippetOf(text: string, terms: Term[], radius = 60): Array<{ text: string; hit: boolean }> {
  const folded = foldCase(text)
  const seen = new Set<string>()
  const needles = terms
    .map((t) => ({ text: foldCase(t.text), word: !matchedAsSubstring(t.text), prefix: t.prefix }))
    .filter((n) => n.text && !seen.has(`${n.word}${n.prefix}${n.text}`) && seen.add(`${n.word}${n.prefix}${n.text}`))
  let first = -1
  for (const n of needles) {
    const at = occurrences(folded, n).next().value?.[0] ?? -1
    if (at >= 0 && (first < 0 || at < first)) first = at
  }
  const start = first < 0 ? 0 : Math.max(0, first - radius)
  const end = Math.min(text.length, (first < 0 ? 0 : first) + radius * 2)
  const slice = text.slice(start, end)
  const marks: Array<[number, number]> = []
  // boundaries are judged on the whole text: a word cut by the window's edge is not a word start
  for (const n of needles)
    for (const [a, b] of occurrences(folded, n)) {
      if (a >= end) break
      if (a >= start) marks.push([a - start, Math.min(b, end) - start])
    }
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

export function searchMessages(
  db: Database.Database,
  shape: HomeShape,
  query: unknown,
  limit = 50,
  filters?: SearchFilters,
  rechecks: ShortRecheck | null = null
): SearchOutcome {
  // what the Sessions page lists is what it searches: no internal or hidden session unless the filters ask
  filters = listed(filters)
  const parsed = parseQuery(query, shape.fts === 'none' ? [] : shape.ftsColumns)
  if (!parsed.ok) return { hits: [], titles: [], ...(parsed.message ? { message: parsed.message } : {}) }
  const n = Math.max(1, Math.min(200, Math.floor(Number(limit) || 50)))
  const { tree, terms } = parsed
  const problems: string[] = []
  // The list shows each compressed segment as a row of its own with the children filter on, or for an id typed
  // into the filter (read-list.ts): the search's results are then those rows too, not one group under the tip.
  const ownRows = filters?.includeChildren === true || !!filters?.idPrefix
  let m: Matches = { ids: [], sessions: new Map() }
  try {
    // read as chains, a copy's hit gives way to its original's (or the reverse): a few more fill the page
    m = matchRows(db, shape, tree, ownRows ? n : Math.min(2 * n, MAX_FETCH), filters, rechecks)
  } catch (err) {
    problems.push(`index: ${errorMessage(err)}`)
  }
  const highlight = positiveTerms(tree)
  let hits: RawHit[] = []
  if (m.ids.length) {
    const rows = stmt<
      ColumnsOf<typeof messages, 'id' | 'session_id' | 'role' | 'timestamp' | 'content' | 'tool_name' | 'tool_calls'> &
        ColumnsOf<typeof sessions, 'title'>
    >(
      db,
      `SELECT m.id, m.session_id, m.role, m.timestamp, m.content, m.tool_name, m.tool_calls, s.title FROM messages m
        LEFT JOIN sessions s ON s.id = m.session_id WHERE m.id IN (SELECT value FROM json_each(?))`
    ).all(JSON.stringify(m.ids))
    const byId = new Map(rows.map((r) => [Number(r.id), r]))
    const page = ownRows ? m.ids : oncePerChain(db, m, n, (id) => byId.get(id)?.session_id)
    hits = page.flatMap((id) => {
      const r = byId.get(id)
      if (!r) return []
      // a multimodal row is cut from its text and attachment placeholders, never from its raw JSON (or a NUL)
      const own = [displayContent(r.content), r.tool_name, r.tool_calls].filter(
        (v): v is string => typeof v === 'string' && v !== ''
      )
      const lowerTerms = highlight.map((t) => t.text.toLowerCase())
      const text = own.find((v) => lowerTerms.some((t) => v.toLowerCase().includes(t))) ?? own[0] ?? ''
      return [
        {
          messageId: id,
          sessionId: String(r.session_id),
          sessionTitle: (r.title as string | null) ?? null,
          role: String(r.role),
          timestamp: num(r.timestamp),
          snippet: snippetOf(text, highlight)
        }
      ]
    })
  }
  let titles: TitleHit[] = []
  try {
    const params: string[] = []
    const cond = toInstr(tree, 's.title', params)
    const fargs: unknown[] = []
    const scoped = sessionConditions(filters, fargs)
      .map((c) => ` AND ${c}`)
      .join('')
    // `s.title IS NOT NULL`: every title here is text.
    titles = stmt<{ id: SessionColumns['id']; title: NonNullable<SessionColumns['title']> }>(
      db,
      `SELECT s.id, s.title FROM sessions s WHERE s.title IS NOT NULL AND ${cond}${scoped}
        ORDER BY COALESCE(s.last_activity_at, s.started_at) DESC LIMIT ?`
    )
      .all(...params, ...fargs, n)
      .map((r) => ({ sessionId: r.id, title: r.title }))
  } catch (err) {
    problems.push(`titles: ${errorMessage(err)}`)
  }
  // A broken index degrades to what the others found; only when everything failed does the user hear why.
  if (hits.length === 0 && titles.length === 0 && problems.length)
    return { hits, titles, message: `Search is unavailable here (${problems[0]})` }
  const chained = ownRows ? { hits, titles, sessions: m.sessions } : byChain(db, hits, titles, m.sessions, m.continued)
  const fallback = [...parsed.notes, ...(m.fallback ? [m.fallback] : [])].join(' ')
  // `^` is FTS5's "at the very start": an empty answer says so rather than looking like no match anywhere
  const initial = terms.filter((t) => t.initial).map((t) => t.text)
  const empty = !hits.length && !titles.length && initial.length
  return {
    ...chained,
    ...(fallback ? { fallback } : {}),
    ...(empty
      ? {
          message: `No message starts with ${initial.join(', ')}: ^ matches only at the start of a message (search without ^ to find it anywhere).`
        }
      : {})
  }
}

/** The most message ids a page of hits reads (its limit is at most 200). */
const MAX_FETCH = 400

/**
 * The newest `n` matched ids less the rows a chain's view leaves out for another row that matched too
 * (search-chain.ts: a message and its copy in the next part give one hit, on the row the chain view shows). The
 * matching sessions' counts lose those rows as well, where every match was read: for every chain part that matched,
 * not only those with a hit on the page (after the page is walked, the other pairs of parts that may hold a matched
 * row and its matched copy are read — search-chain.ts readPairs — so the cost follows the matched copies).
 */
function oncePerChain(
  db: Database.Database,
  m: Matches,
  n: number,
  sessionOf: (id: number) => string | undefined
): number[] {
  const onPage = m.ids.flatMap((id) => sessionOf(id) ?? [])
  // every matching session where they were all counted, else those the read ids are in
  const inPage = new Set(onPage)
  const matches = (sessionId: string) => (m.matched ? m.sessions.has(sessionId) : inPage.has(sessionId))
  const copies = new ChainCopies(db, onPage, matches)
  // where every match was read, every matching session's count is given: the chains with no hit here count too
  const counted = !!m.matched && !!m.continued?.size
  if (!copies.any && !counted) return m.ids.slice(0, n)
  const read = new Set(m.ids)
  const matched = (id: number) => (m.matched ? m.matched().has(id) : read.has(id))
  const givesWay = (id: number) => {
    const shown = copies.shownRow(id)
    return shown !== id && matched(shown)
  }
  const page: number[] = []
  for (const id of m.ids) {
    if (page.length === n) break
    const sessionId = sessionOf(id)
    if (sessionId !== undefined) copies.read(sessionId)
    if (!givesWay(id)) page.push(id)
  }
  if (m.matched) {
    // the matching parts no kept hit is in: their copies count once as well
    if (counted) copies.readPairs(m.matched(), m.continued!)
    for (const [id, { sessionId }] of copies.leftOut) {
      if (!matched(id) || !givesWay(id)) continue
      const g = m.sessions.get(sessionId)
      if (g && --g.hits <= 0) m.sessions.delete(sessionId)
    }
  }
  return page
}

/**
 * A compression chain is one conversation: hits in its earlier segments carry the tip's id (`chainId`), and the
 * per-session counts and title matches are merged onto the tip, named by the tip's title.
 */
function byChain(
  db: Database.Database,
  hits: RawHit[],
  titles: TitleHit[],
  sessions: Map<string, { hits: number; title: string | null }>,
  continued: Iterable<string> = sessions.keys()
): Pick<SearchOutcome, 'hits' | 'titles' | 'sessions'> {
  // Only a compression-ended session has a tip past it: of the (possibly thousands of) matching sessions, walk
  // just the ones matchRows saw ended that way.
  const tips = chainTips(db, [...hits.map((h) => h.sessionId), ...titles.map((t) => t.sessionId), ...continued])
  if (!tips.size) return { hits, titles, sessions }
  const titleOf = stmt<SessionColumns['title']>(db, 'SELECT title AS plucked FROM sessions WHERE id = ?').pluck()
  const tipTitle = new Map<string, string | null>()
  const named = (id: string) => {
    if (!tipTitle.has(id)) tipTitle.set(id, titleOf.get(id) ?? null)
    return tipTitle.get(id)!
  }
  const merged = new Map<string, { hits: number; title: string | null }>()
  for (const [id, g] of sessions) {
    const tip = tips.get(id)
    const key = tip ?? id
    const into = merged.get(key) ?? { hits: 0, title: tip ? named(tip) : g.title }
    into.hits += g.hits
    // continuations are often untitled: the chain goes by a segment's title, as the list names it
    into.title ??= g.title ?? (tip ? titleOf.get(id) : null) ?? null
    merged.set(key, into)
  }
  const seen = new Set<string>()
  const chainTitles: TitleHit[] = []
  for (const t of titles) {
    const tip = tips.get(t.sessionId)
    const id = tip ?? t.sessionId
    if (seen.has(id)) continue
    seen.add(id)
    chainTitles.push(tip ? { sessionId: tip, title: named(tip) ?? t.title } : t)
  }
  return {
    hits: hits.map((h) => {
      const tip = tips.get(h.sessionId)
      return tip ? { ...h, chainId: tip } : h
    }),
    titles: chainTitles,
    sessions: merged
  }
}
