/**
 * Which rows match a parsed query. Each term is answered where it can be answered exactly (README "Search
 * semantics"): words, phrases and `pre*` prefixes by the word index (`messages_fts`, never substrings, so
 * `heat*` does not find "theater"); CJK runs, emoji and symbols, which FTS5 cannot split into words, by the
 * trigram index when 3+ characters long, else (or in a home without a trigram index) by a complete `instr`
 * scan of every row. A tree one index answers goes to FTS5 whole (its own precedence); a mixed tree is combined
 * per row with the same precedence. Only visible rows count: not rewound out (`active = 0 AND compacted = 0`) and not
 * upstream's model-facing scaffolding (`display_kind = 'hidden'`), which upstream's own search leaves out too.
 */
import type Database from 'better-sqlite3'
import type { HomeShape } from './shape'
import { prepareOnce } from './stmt-cache'
import { rowsViaJson } from './json-rows'
import { matchTerm, nearItems, toInstr, toMatch, type Node, type Term } from './search-query'
import {
  SHORT_JOIN,
  SHORT_LOOKUP,
  STALE_ROWS,
  gramsLookup,
  isShortTerm,
  narrowingGrams,
  shortIndexState,
  substringParts
} from './short-index'
import { archivedSql, hiddenMessageSql, marker, shownSql } from './sql'
import type { messages } from './schema'
import { BASE_SQL, baseFold } from './fold'
import { MatchedSessions } from './search-sessions'
import {
  WORD_CHECK_CAP,
  clearWordIndex,
  inGap,
  indexGap,
  plainWordTexts,
  wordIndexOf,
  type IndexGap
} from './search-gap'

// a hit is a row the transcript shows (sql.ts hiddenMessageSql), so opening it lands on it
const VISIBLE = `(m.active = 1 OR m.compacted = 1) AND NOT ${hiddenMessageSql('m.')}`
/** Above this many index matches, sessions are grouped from the page only (counting would cost more than the page). */
const COUNT_CAP = 20_000
type MessageId = (typeof messages.$inferSelect)['id']
/** A matching message: its session and id. */
type Row = [(typeof messages.$inferSelect)['session_id'], MessageId]

function group(rows: Row[]): Map<string, { hits: number; title: string | null }> {
  const out = new Map<string, { hits: number; title: string | null }>()
  for (const [s] of rows) {
    const g = out.get(s)
    if (g) g.hits++
    else out.set(s, { hits: 1, title: null })
  }
  return out
}
const chars = (s: string) => [...s].length
/** The rows' message ids as a set, built on the first call. */
function once(rows: Row[]): () => Map<number, string> {
  let ids: Map<number, string> | undefined
  return () => (ids ??= new Map(rows.map((r) => [Number(r[1]), String(r[0])])))
}

/** Text FTS5's word index cannot answer: CJK runs (no spaces between words), emoji, symbols. */
const SUBSTRING =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{S}\p{Extended_Pictographic}]/u
/** Whether a term is matched as a substring (CJK, emoji, symbols) rather than as a word or word prefix. */
export const matchedAsSubstring = (text: string): boolean => SUBSTRING.test(text)

type Source = 'word' | 'trigram' | 'short' | 'scan'
/** The text of the named word-index columns (upstream's are messages columns of the same names). */
const columnText = (columns: string[]) => columns.map((c) => `COALESCE(m."${c}", '')`).join(" || ' ' || ")

/**
 * The rows upstream's v30 trigram index leaves out by design (hermes-spec §1.3, `messages_fts_trigram_src`): tool
 * output, and every row of a cron or subagent session or a delegated child (`_delegate_from`). Its answer for a 3+
 * character term is completed from these rows (leftOutIds), so a term never finds less than a piece of it.
 */
const LEFT_OUT = `(m.role = 'tool' OR m.session_id IN (SELECT s.id FROM sessions s
  WHERE s.source IN ('cron', 'subagent') OR ${marker('s', '_delegate_from')} IS NOT NULL))`

/** How the terms of one query are read: each term's source, the text a substring is looked for in. */
interface Reading {
  src: (t: Term) => Source
  /** The SQL columns of message `m` a substring term is matched in (short-index.ts substringParts). */
  text: readonly string[]
  /** Whether the home's trigram index leaves rows out (LEFT_OUT): its answers are completed from them. */
  leavesOut: boolean
  /** Caduceus's short-text index: read up to here (rows after it are scanned); null: not usable. */
  indexedTo: number | null
  /** Rows up to `indexedTo` whose grams are not trusted until rechecked (short-index.ts Rechecks), as JSON. */
  recheck: string | null
  /** The word index a 'word' term is looked up in (search-gap.ts: a TEMP one over the rows upstream's lacks). */
  wordTable?: string
}

/**
 * Candidate ids (up to the short index's `indexedTo`) for the rows holding what `n` needs, from the grams of its
 * terms (short-index.ts narrowingGrams); null where some term has no gram to narrow by. A NOT needs only its left.
 */
function candidates(n: Node, params: unknown[]): string | null {
  if (n.kind === 'term') {
    const grams = narrowingGrams(n.text)
    if (!grams.length) return null
    params.push(...grams)
    return gramsLookup(grams.length)
  }
  if (n.kind === 'not') return candidates(n.left, params)
  const items = n.kind === 'near' ? nearItems(n) : n.items
  if (n.kind === 'or') {
    const mark = params.length
    const each = items.map((x) => candidates(x, params))
    if (each.some((c) => c === null)) {
      params.length = mark
      return null
    }
    return each.map((c) => `SELECT message_id FROM (${c})`).join(' UNION ')
  }
  // AND: the first item that narrows is enough (the instr check that follows tests them all)
  for (const x of items) {
    const mark = params.length
    const c = candidates(x, params)
    if (c !== null) return c
    params.length = mark
  }
  return null
}

/**
 * Ids of the rows upstream's trigram index leaves out (LEFT_OUT) that `n` matches as substrings: the short index's
 * candidates checked with `instr` plus the rows after it, or a complete scan of those rows where it is not usable.
 * Candidates the trigram index answers for `n` are its answer already: only the others are read (most candidates
 * of a common term are indexed rows, and reading each costs a row lookup).
 */
function leftOutIds(n: Node, r: Reading, params: unknown[]): string {
  const check = (p: unknown[]) => `${LEFT_OUT} AND ${toInstr(n, r.text, p as string[], columnText)}`
  if (r.indexedTo !== null) {
    const mark = params.length
    const c = candidates(n, params)
    if (c !== null) {
      // rows being rechecked are candidates too: their grams may not hold their new text yet
      if (r.recheck !== null) params.push(r.recheck)
      params.push(toMatch(n, true), r.indexedTo)
      const more = r.recheck !== null ? ' UNION SELECT value FROM json_each(?)' : ''
      const head = `SELECT m.id FROM messages m WHERE m.id IN (SELECT message_id FROM (${c})${more}
        EXCEPT SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?) AND m.id <= ? AND ${check(params)}`
      params.push(r.indexedTo)
      return `${head} UNION ALL SELECT m.id FROM messages m WHERE m.id > ? AND ${check(params)}`
    }
    params.length = mark
  }
  return `SELECT m.id FROM messages m WHERE ${check(params)}`
}

/** A SQL boolean over messages `m`, each term answered by its own source; params appended. */
function condition(n: Node, r: Reading, params: string[]): string {
  if (n.kind === 'term') {
    const s = r.src(n)
    // a short term in a tree that is scanned anyway is read by the same scan (the trigram index holds no 1–2
    // character term: `東京 OR tool_calls:東京タワー` found nothing at all)
    if (s === 'scan' || s === 'short') return toInstr(n, r.text, params, columnText)
    const table = s === 'word' ? (r.wordTable ?? 'messages_fts') : 'messages_fts_trigram'
    params.push(matchTerm(n, s === 'word'))
    const indexed = `m.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`
    // the rows the trigram index leaves out are read by this scan too
    if (s === 'trigram' && r.leavesOut)
      return `(${indexed} OR (${LEFT_OUT} AND ${toInstr(n, r.text, params, columnText)}))`
    return indexed
  }
  if (n.kind === 'near') {
    // kept only where the word index answers every phrase (nearAsAnd)
    params.push(toMatch(n))
    const table = r.wordTable ?? 'messages_fts'
    return `m.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`
  }
  if (n.kind === 'not') return `(${condition(n.left, r, params)} AND NOT ${condition(n.right, r, params)})`
  return `(${n.items.map((x) => condition(x, r, params)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}

/**
 * The matching message ids as one compound SELECT (no scan of messages): each term from its index — a short
 * term from Caduceus's gram index up to `indexedTo` plus an `instr` over only the rows after it, a trigram term from
 * the trigram index plus the rows it leaves out (leftOutIds) — combined with INTERSECT / UNION / EXCEPT in the
 * tree's own precedence.
 */
function idSet(n: Node, r: Reading, params: unknown[]): string {
  if (n.kind === 'term') {
    const s = r.src(n)
    if (s === 'short') {
      // the grams answer up to indexedTo only: rows a recheck has not reached yet (`before`) are read by their text
      params.push(n.text, r.indexedTo ?? 0)
      let lookup = SHORT_LOOKUP
      if (r.recheck !== null) {
        // grams of a row being rechecked may be its old text's: the row is read by its text instead
        params.push(r.recheck, r.recheck)
        lookup = `${SHORT_LOOKUP} AND message_id NOT IN (SELECT value FROM json_each(?)) UNION ALL SELECT m.id FROM messages m
          WHERE m.id IN (SELECT value FROM json_each(?)) AND ${toInstr(n, r.text, params as string[], columnText)}`
      }
      params.push(r.indexedTo ?? 0)
      const tail = toInstr(n, r.text, params as string[], columnText)
      const found = `SELECT id FROM (${lookup} UNION ALL SELECT m.id FROM messages m WHERE m.id > ? AND ${tail})`
      if (!n.initial && !n.columns) return found
      // the gram index says where the text is, not whether a message starts with it or in which column
      return `SELECT m.id FROM messages m WHERE m.id IN (${found}) AND ${toInstr(n, r.text, params as string[], columnText)}`
    }
    const table = s === 'word' ? 'messages_fts' : 'messages_fts_trigram'
    params.push(matchTerm(n, s === 'word'))
    const indexed = `SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ?`
    if (s === 'trigram' && r.leavesOut) return `${indexed} UNION ALL SELECT id FROM (${leftOutIds(n, r, params)})`
    return indexed
  }
  if (n.kind === 'near') {
    params.push(toMatch(n))
    return 'SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ?'
  }
  const wrap = (x: Node) => `SELECT id FROM (${idSet(x, r, params)})`
  if (n.kind === 'not') return `${wrap(n.left)} EXCEPT ${wrap(n.right)}`
  return n.items.map(wrap).join(n.kind === 'and' ? ' INTERSECT ' : ' UNION ')
}

/**
 * The visible rows matching `n` (every term from an index: idSet) that pass the message filters, as (session id, id)
 * in id order. A lone short term, the commonest such query (a CJK pair, an emoji), joins its grams to the rows
 * directly and reads the rows after the index by their text: no list of thousands of ids is built to look them up.
 */
function indexedRows(
  n: Node,
  r: Reading,
  filters: SearchFilters | undefined,
  gap: IndexGap | null,
  params: unknown[]
): string {
  const filter = () => messageFilter(filters, params, { sessions: false, gap })
  if (n.kind === 'term' && r.src(n) === 'short' && !n.initial && !n.columns && r.recheck === null) {
    params.push(n.text, r.indexedTo ?? 0)
    const indexed = `SELECT m.session_id AS c0, m.id AS c1 FROM ${SHORT_JOIN} AND ${VISIBLE}${filter()}`
    params.push(r.indexedTo ?? 0)
    const tail = `SELECT m.session_id, m.id FROM messages m WHERE m.id > ? AND ${toInstr(n, r.text, params as string[], columnText)} AND ${VISIBLE}${filter()}`
    // each part comes in id order (the grams' key, then the rowid), the first one's ids all below the second's
    return `${indexed} UNION ALL ${tail}`
  }
  const set = idSet(n, r, params)
  return `SELECT m.session_id AS c0, m.id AS c1 FROM messages m WHERE m.id IN (${set}) AND ${VISIBLE}${filter()} ORDER BY m.id`
}

/**
 * The Sessions page's filters, applied to a search as to the list: by the hit's session (source, archived, id
 * prefix, delegate children) and by the hit message's own time (from/to). Absent fields filter nothing.
 */
export interface SearchFilters {
  sources?: string[]
  excludeSources?: string[]
  archived?: 'exclude' | 'include' | 'only'
  from?: number
  to?: number
  idPrefix?: string
  includeChildren?: boolean
}

/**
 * Sessions no person had — kanban workers, a third-party tool's runs (a chat UI's background tasks among them), one-shot
 * runs: upstream's human session lists (TUI/Desktop, `/sessions`, the console's `sessions list`) leave them out (its
 * INTERNAL_LISTING_SOURCES deny-list). So do the list and the search, unless the query names sources, excludes its
 * own, asks for an id or turns the children filter on (every session, as upstream's include_children lists them).
 */
const INTERNAL_SOURCES = ['kanban', 'tool', 'oneshot']

/**
 * The filters as the Sessions page applies them, to its list and its search alike: upstream's internal sources left
 * out unless asked for (above); hidden sessions (upstream's `hidden` mark, kept by sessionConditions) always.
 */
export function listed(f: SearchFilters = {}): SearchFilters {
  const asked = f.sources?.length || f.idPrefix || f.includeChildren
  return { ...f, excludeSources: f.excludeSources ?? (asked ? undefined : INTERNAL_SOURCES) }
}

/**
 * Conditions on sessions `s` (params appended), for message hits, title matches and the session list alike; a session
 * marked hidden (upstream's internal runs, a chat UI's background task that quoted no conversation) is never one.
 * `walkingActivity`: the query walks the list's activity index in order, so a unary + keeps the planner from
 * switching to idx_sessions_source and sorting every matching row.
 */
export function sessionConditions(
  f: SearchFilters | undefined,
  args: unknown[],
  opts: { walkingActivity?: boolean } = {}
): string[] {
  const where: string[] = []
  if (!f) return where
  where.push('COALESCE(s.hidden, 0) = 0')
  if (f.sources?.length) {
    where.push(`${opts.walkingActivity ? '+' : ''}s.source IN (${f.sources.map(() => '?').join(',')})`)
    args.push(...f.sources)
  }
  if (f.excludeSources?.length) {
    where.push(`${opts.walkingActivity ? '+' : ''}s.source NOT IN (${f.excludeSources.map(() => '?').join(',')})`)
    args.push(...f.excludeSources)
  }
  if (f.idPrefix) {
    where.push('substr(s.id, 1, ?) = ?')
    args.push(f.idPrefix.length, f.idPrefix)
  }
  // What upstream's list shows: roots, branches, and chains through a root it shows
  // A compression chain is archived or not as a whole, by its root's flag (sql.ts byChainRoot)
  const archived = f.archived ?? 'include'
  if (f.includeChildren === false) where.push(shownSql('s', archived))
  else if (archived !== 'include') where.push(archivedSql('s', archived))
  return where
}

/**
 * `AND …` restricting messages `m` by the filters, or '' (params appended). `sessions: false` leaves the session
 * conditions out, for a read of every match that applies them once per matching session afterwards (allowedSessions).
 * Where they stay (a page: LIMIT rows), each row's session is one lookup by id: an `m.session_id IN (SELECT …)` would
 * first list every session that passes (~2.6 ms on a 10k-session home, for a page of 100 rows that costs 0.15 ms).
 */
function messageFilter(
  f: SearchFilters | undefined,
  args: unknown[],
  opts: { sessions?: boolean; gap?: IndexGap | null } = {}
): string {
  const parts: string[] = []
  // the rows upstream's indexes lack are read apart (gapRows): an index's answer never stands for them
  if (opts.gap) parts.push(`NOT ${inGap(opts.gap, args)}`)
  const inSession = opts.sessions === false ? [] : sessionConditions(f, args)
  if (inSession.length)
    parts.push(`EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id AND ${inSession.join(' AND ')})`)
  if (f?.from !== undefined) {
    parts.push('m.timestamp >= ?')
    args.push(f.from)
  }
  if (f?.to !== undefined) {
    parts.push('m.timestamp <= ?')
    args.push(f.to)
  }
  return parts.map((p) => ` AND ${p}`).join('')
}

export interface Matches {
  /** The newest `n` matching visible message ids. */
  ids: number[]
  /** Every matching session → its number of matching visible messages (complete; empty above COUNT_CAP index
   * matches, when the caller groups the page's hits instead). */
  sessions: Map<string, { hits: number; title: string | null }>
  /** The ids in `sessions` that compression ended (the only ones a chain can continue past). */
  continued?: Set<string>
  /**
   * Every matching visible message id → its session, where they were all read (not above COUNT_CAP index matches):
   * made into a map only when asked (a search that meets a compression chain), not on every search.
   */
  matched?: () => Map<number, string>
  /** Which terms a fallback answered, for the user; absent when FTS5 answered everything. */
  fallback?: string
}

/** Every leaf term of a tree, a NEAR group's phrases with the group's column filter. */
function leaves(n: Node): Term[] {
  if (n.kind === 'term') return [n]
  if (n.kind === 'near') return nearItems(n)
  if (n.kind === 'not') return [...leaves(n.left), ...leaves(n.right)]
  return n.items.flatMap(leaves)
}

/**
 * A NEAR group FTS5's word index cannot answer (a CJK, emoji or symbol phrase; a home without the index) becomes
 * its phrases ANDed: word distances exist only in the word index. Each such group is named in `read`.
 */
function nearAsAnd(n: Node, word: (t: Term) => boolean, read: string[]): Node {
  if (n.kind === 'term') return n
  if (n.kind === 'near') {
    const items = nearItems(n)
    if (items.every(word)) return n
    read.push(items.map((t) => t.text).join(' '))
    return { kind: 'and', items }
  }
  if (n.kind === 'not')
    return { kind: 'not', left: nearAsAnd(n.left, word, read), right: nearAsAnd(n.right, word, read) }
  return { kind: n.kind, items: n.items.map((x) => nearAsAnd(x, word, read)) }
}

/** What a search reads by text instead of the short-text index's grams (short-index.ts Rechecks forSearch). */
export interface ShortRecheck {
  before: number
  ids: number[]
}

export function matchRows(
  db: Database.Database,
  shape: HomeShape,
  typed: Node,
  n: number,
  filters?: SearchFilters,
  rechecks: ShortRecheck | null = null
): Matches {
  const nearRead: string[] = []
  const tree = nearAsAnd(typed, (t) => shape.fts !== 'none' && !SUBSTRING.test(t.text), nearRead)
  const terms = leaves(tree)
  const trigram = shape.trigram !== 'none'
  const trigramColumns = new Set(shape.trigramColumns.map((c) => c.toLowerCase()))
  // a column filter the trigram index can apply (it lacks tool_calls, and a legacy one has only content)
  const trigramCan = (t: Term) => !t.columns || t.columns.only.every((c) => trigramColumns.has(c.toLowerCase()))
  const isTrigram = (t: Term) => SUBSTRING.test(t.text) && trigram && chars(t.text) >= 3 && trigramCan(t)
  // upstream's v30 trigram index (external content, over a view) leaves tool output and cron/subagent/delegated
  // runs out: its answers are completed from those rows (LEFT_OUT); an inline (v21) one holds every row
  const leavesOut = shape.trigram === 'external' && terms.some(isTrigram)
  // Caduceus's short-term index, when its own writes built it and other programs have not run far ahead of it.
  const short =
    leavesOut || terms.some((t) => SUBSTRING.test(t.text) && isShortTerm(t.text)) ? shortIndexState(db, shape) : null
  const shortUsable = short !== null && short.behind <= STALE_ROWS
  const src = (t: Term): Source =>
    !SUBSTRING.test(t.text)
      ? shape.fts === 'none'
        ? 'scan'
        : 'word'
      : isTrigram(t)
        ? 'trigram'
        : shortUsable && isShortTerm(t.text)
          ? 'short'
          : 'scan'
  const reading: Reading = {
    src,
    text: substringParts(shape),
    leavesOut,
    // rows another program may have rewritten since they were read into it: past `before`, and `ids`, by their text
    indexedTo: shortUsable ? Math.min(short.indexedTo, rechecks?.before ?? Number.POSITIVE_INFINITY) : null,
    recheck: shortUsable && rechecks?.ids.length ? JSON.stringify(rechecks.ids) : null
  }
  const sources = new Set(terms.map(src))
  // without the short index, the rows the trigram index leaves out are scanned: once for the whole tree
  const leftOutScanned = leavesOut && !shortUsable
  const params: string[] = []
  let ids: number[]
  let sessions: Map<string, { hits: number; title: string | null }>
  let all: Row[] | null
  // the rows upstream's indexes lack by its own markers (search-gap.ts): read apart below, left out of this answer
  const gap = indexGap(db, shape)
  // the matches' sessions: which pass the filters, their titles (search-sessions.ts)
  const sargs: unknown[] = []
  const matched = new MatchedSessions(db, sessionConditions(filters, sargs), sargs)
  if (gap?.upTo === null) {
    // marked stale: nothing an index holds is trusted, every row is read by the gap's scan
    ids = []
    all = []
    sessions = new Map()
  } else if (sources.size === 1 && (sources.has('word') || sources.has('trigram'))) {
    // One index answers the whole tree: FTS5 evaluates it with its own precedence, streaming rowids newest
    // first (the huge LIMIT keeps the subquery's order from being flattened away).
    const table = sources.has('word') ? 'messages_fts' : 'messages_fts_trigram'
    const match = toMatch(tree, table !== 'messages_fts')
    const from = (where: string) => `(SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ?
      ORDER BY rowid DESC LIMIT 1000000000) f CROSS JOIN messages m ON m.id = f.id WHERE ${VISIBLE}${where}`
    const fargs: unknown[] = []
    ids = prepareOnce<MessageId>(db, `SELECT m.id FROM ${from(messageFilter(filters, fargs, { gap }))} LIMIT ?`)
      .pluck()
      .all(match, ...fargs, n)
    const many = prepareOnce<number>(db, `SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`)
      .pluck()
      .get(match, COUNT_CAP + 1)!
    const margs: unknown[] = []
    const where = messageFilter(filters, margs, { sessions: false, gap })
    all =
      many > COUNT_CAP
        ? null
        : matched.allowed(
            rowsViaJson<Row>(db, `SELECT m.session_id AS c0, m.id AS c1 FROM ${from(where)}`, 2, [match, ...margs])
          )
    if (leavesOut) {
      // the rows the trigram index leaves out, the whole tree checked on each (every term in them is a substring)
      const lp: unknown[] = []
      const set = leftOutIds(tree, reading, lp)
      const filter = messageFilter(filters, lp, { sessions: false, gap })
      const more = matched.allowed(
        rowsViaJson<Row>(
          db,
          `SELECT m.session_id AS c0, m.id AS c1 FROM messages m WHERE m.id IN (${set}) AND ${VISIBLE}${filter}`,
          2,
          lp
        )
      )
      if (more.length) {
        // a row the index holds as well (its session became cron after it was indexed) counts once
        const have = new Set(all ? all.map((r) => Number(r[1])) : ids)
        const added = more.filter((r) => !have.has(Number(r[1])))
        if (all) all = [...all, ...added].sort((a, b) => Number(a[1]) - Number(b[1]))
        ids = [...ids, ...added.map((r) => Number(r[1]))].sort((a, b) => b - a).slice(0, n)
      }
    }
    sessions = all ? group(all) : new Map()
  } else if (!sources.has('scan') && !(leftOutScanned && sources.has('trigram'))) {
    // Every term has an index (Caduceus's short index among them): ids from a compound of index lookups.
    const params: unknown[] = []
    const rows = (all = matched.allowed(
      rowsViaJson<Row>(db, indexedRows(tree, reading, filters, gap, params), 2, params)
    ))
    // (id order is what SQLite's plan yields: checked, not assumed)
    if (rows.some((r, i) => i > 0 && Number(r[1]) < Number(rows[i - 1]![1])))
      rows.sort((a, b) => Number(a[1]) - Number(b[1]))
    ids = rows
      .slice(-n)
      .map((r) => Number(r[1]))
      .sort((a, b) => b - a)
    sessions = group(rows)
  } else {
    // A scan or a mixed tree: one pass over every row (complete at any size), newest page and counts together.
    const cond = condition(tree, reading, params)
    const fargs: unknown[] = []
    const filter = messageFilter(filters, fargs, { sessions: false, gap })
    const rows = (all = matched.allowed(
      rowsViaJson<Row>(
        db,
        `SELECT m.session_id AS c0, m.id AS c1 FROM messages m WHERE ${VISIBLE} AND ${cond}${filter}`,
        2,
        [...params, ...fargs]
      )
    ))
    ids = rows
      .slice(-n)
      .map((r) => Number(r[1]))
      .sort((a, b) => b - a)
    sessions = group(rows)
  }
  let gapNote = ''
  if (gap) {
    const found = gapRows(db, shape, tree, reading, gap, filters, matched)
    gapNote = gap.note + (found.asText ? ` ${found.asText}` : '')
    if (found.rows.length) {
      if (all) all = [...all, ...found.rows].sort((a, b) => Number(a[1]) - Number(b[1]))
      ids = [...ids, ...found.rows.map((r) => Number(r[1]))].sort((a, b) => b - a).slice(0, n)
      if (all) sessions = group(all)
    }
  }
  // Matching sessions that compression continued: only their chains need walking to a tip (search.ts).
  const continued = matched.describe(sessions)
  // in a scanned tree, the short terms were read by the scan too (condition)
  const scanned = sources.has('scan') || (leftOutScanned && sources.has('trigram') && sources.size > 1)
  const answeredBy = (t: Term): Source => (scanned && src(t) === 'short' ? 'scan' : src(t))
  const by = (s: Source, of = terms) => [...new Set(of.filter((t) => answeredBy(t) === s).map((t) => t.text))]
  const notes: string[] = []
  if (nearRead.length)
    notes.push(
      `NEAR read as AND for ${nearRead.join('; ')} (${shape.fts === 'none' ? 'this home has no word index' : 'word distances exist only in the word index, which does not hold CJK text, emoji or symbols'})`
    )
  if (by('trigram').length) {
    const how =
      !scanned && shortUsable
        ? "by Caduceus's short-text index"
        : `by a complete scan (${
            short === null
              ? "Caduceus's short-text index is not built here"
              : !shortUsable
                ? `Caduceus's short-text index is ${short.behind} rows behind`
                : 'read with the rest of the query, which is scanned'
          })`
    notes.push(
      `substring match (trigram index) for ${by('trigram').join(', ')}${leavesOut ? `, and in the rows that index leaves out (tool output, cron, subagent and delegated runs) ${how}` : ''}`
    )
  }
  if (by('short').length) {
    // rows another program wrote over since the index read them are read by their text until rechecked
    const rereading = shortUsable && (!!reading.recheck || reading.indexedTo! < short.indexedTo)
    notes.push(
      `substring match (Caduceus's short-text index${rereading ? ', and by their text the rows another program rewrote since it read them' : ''}) for ${by('short').join(', ')}`
    )
  }
  // a 3+ character term scanned where the trigram index is: its column filter names a column that index lacks
  const noColumn = (t: Term) => trigram && chars(t.text) >= 3 && !trigramCan(t)
  const columned = by(
    'scan',
    terms.filter((t) => SUBSTRING.test(t.text) && noColumn(t))
  )
  if (columned.length) notes.push(`complete scan for ${columned.join(', ')} (a column the trigram index does not have)`)
  const rest = by(
    'scan',
    terms.filter((t) => !(SUBSTRING.test(t.text) && noColumn(t)))
  )
  if (rest.length) {
    const why = !trigram
      ? 'this home has no trigram index'
      : short === null
        ? "shorter than 3 characters; Caduceus's short-text index is not built here"
        : !shortUsable
          ? `shorter than 3 characters; Caduceus's short-text index is ${short.behind} rows behind`
          : by('short').length === 0 && terms.some((t) => src(t) === 'short')
            ? 'read with the rest of the query, which is scanned'
            : 'shorter than 3 characters'
    notes.push(`complete scan for ${rest.join(', ')} (${why})`)
  }
  const said = [notes.length ? `Not a word search: ${notes.join('; ')}.` : '', gapNote].filter(Boolean).join(' ')
  return {
    ids,
    sessions,
    continued,
    ...(all ? { matched: once(all) } : {}),
    ...(said ? { fallback: said } : {})
  }
}

/** Every column a word-index term may match in (a superset of what any layout's index holds). */
const WORD_COLUMNS = ['m.content', 'm.tool_name', 'm.tool_calls'] as const
/** The runs of characters FTS5's unicode61 tokenizer keeps in a word. */
const WORD_PIECE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu

/**
 * A SQL boolean over messages `m` true for at least every row where `n` holds in the word index (params appended):
 * a word term by each of its pieces as text (caseless, diacritics aside, as unicode61 folds them — an accented letter
 * in a tool name or tool calls only in its own case), a substring term exactly, a NOT by its left side only. The
 * rows it finds are then checked exactly (gapRows).
 */
function atLeast(n: Node, r: Reading, params: unknown[]): string {
  if (n.kind === 'term') {
    if (matchedAsSubstring(n.text)) return toInstr(n, r.text, params as string[], columnText)
    const pieces = [...new Set(baseFold(n.text).match(WORD_PIECE) ?? [])]
    if (!pieces.length) return '1'
    return `(${pieces
      .map((p) => {
        // a piece beyond ASCII: the JS fold on every column
        if (!/^[\x00-\x7f]*$/.test(p)) {
          params.push(p, p, p)
          return `(${WORD_COLUMNS.map((c) => `instr(${BASE_SQL}(${c}), ?) > 0`).join(' OR ')})`
        }
        // an ASCII one: SQLite's LIKE folds ASCII case without copying the text; the JS fold only for a content
        // holding other characters (an accented letter FTS5 reads as its base letter)
        params.push(...WORD_COLUMNS.map(() => `%${p}%`), p)
        return `(${WORD_COLUMNS.map((c) => `${c} LIKE ?`).join(' OR ')}
          OR (octet_length(m.content) != length(m.content) AND instr(${BASE_SQL}(m.content), ?) > 0))`
      })
      .join(' AND ')})`
  }
  if (n.kind === 'near')
    return `(${nearItems(n)
      .map((x) => atLeast(x, r, params))
      .join(' AND ')})`
  if (n.kind === 'not') return atLeast(n.left, r, params)
  return `(${n.items.map((x) => atLeast(x, r, params)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}

/** A word FTS5's unicode61 tokenizer reads as one token whatever its neighbours: ASCII letters and digits only. */
const ASCII_WORD = /^[A-Za-z0-9]+$/

/**
 * A SQL boolean over messages `m` true only where the word index surely holds `n` (params appended), for a row that
 * atLeast found: a plain ASCII word (or `pre*`) with a space, or the text's edge, on both sides (or before a prefix)
 * in a text the index holds is that token, whatever else the row says. Anything else ('0') is left to the TEMP word
 * index. `texts`: the word index's texts (search-gap.ts plainWordTexts).
 */
function surely(n: Node, r: Reading, texts: readonly string[], params: unknown[]): string {
  if (n.kind === 'term') {
    if (n.columns || n.initial || !ASCII_WORD.test(n.text)) return '0'
    const needle = ` ${n.text.toLowerCase()}${n.prefix ? '' : ' '}`
    params.push(...texts.map(() => needle))
    return `(${texts.map((t) => `instr(' ' || lower(COALESCE(${t}, '')) || ' ', ?) > 0`).join(' OR ')})`
  }
  if (n.kind === 'near') return '0'
  if (n.kind === 'not') return `(${surely(n.left, r, texts, params)} AND ${surelyNot(n.right, r, texts, params)})`
  return `(${n.items.map((x) => surely(x, r, texts, params)).join(n.kind === 'and' ? ' AND ' : ' OR ')})`
}

/** The other side: true only where the word index surely does not hold `n` (atLeast false, or a NOT's right surely holds). */
function surelyNot(n: Node, r: Reading, texts: readonly string[], params: unknown[]): string {
  // atLeast is NULL where it found nothing in a NULL column: as false as it is in a WHERE
  if (n.kind === 'term' || n.kind === 'near') return `NOT COALESCE(${atLeast(n, r, params)}, 0)`
  if (n.kind === 'not') return `(${surelyNot(n.left, r, texts, params)} OR ${surely(n.right, r, texts, params)})`
  return `(${n.items.map((x) => surelyNot(x, r, texts, params)).join(n.kind === 'and' ? ' OR ' : ' AND ')})`
}

/**
 * The visible rows inside `gap` that match `tree`, as the home's indexes would answer once they hold them: a scan of
 * just those ids. Substring terms are matched there as everywhere (instr); word terms first as text (atLeast), and
 * of the rows found, those where the word surely stands as a token (surely: most rows of a common word) are taken as
 * they are; the rest are put in a TEMP word index like the home's and the whole tree is asked of it with FTS5's own
 * semantics (search-gap.ts wordIndexOf) — indexing every found row cost ~3 s for a common word at 500k messages.
 * More than WORD_CHECK_CAP such rows (or no such index here): the tree is matched as text over them, and `asText`
 * says so.
 */
function gapRows(
  db: Database.Database,
  shape: HomeShape,
  tree: Node,
  r: Reading,
  gap: IndexGap,
  filters: SearchFilters | undefined,
  matched: MatchedSessions
): { rows: Row[]; asText: string } {
  const scan: Reading = { ...r, src: () => 'scan', leavesOut: false, indexedTo: null, recheck: null }
  const select = (where: string, args: unknown[]) =>
    matched.allowed(
      rowsViaJson<Row>(
        db,
        `SELECT m.session_id AS c0, m.id AS c1 FROM messages m WHERE ${where} ORDER BY m.id`,
        2,
        args
      )
    )
  const inRange = (args: unknown[]) => `${inGap(gap, args)} AND ${VISIBLE}`
  if (!leaves(tree).some((t) => r.src(t) === 'word')) {
    const args: unknown[] = []
    const where = `${inRange(args)} AND ${condition(tree, scan, args as string[])}${messageFilter(filters, args, { sessions: false })}`
    return { rows: select(where, args), asText: '' }
  }
  const args: unknown[] = []
  const texts = plainWordTexts(db, shape)
  // 1: surely a match, 0: surely not, NULL: the TEMP word index decides
  const sure = texts
    ? `CASE WHEN ${surely(tree, r, texts, args)} THEN 1 WHEN ${surelyNot(tree, r, texts, args)} THEN 0 END`
    : 'NULL'
  const where = `${inRange(args)} AND ${atLeast(tree, r, args)}${messageFilter(filters, args, { sessions: false })}`
  const scanned = matched.allowed(
    rowsViaJson<[...Row, number | null]>(
      db,
      `SELECT m.session_id AS c0, m.id AS c1, ${sure} AS c2 FROM messages m WHERE ${where} ORDER BY m.id`,
      3,
      args
    )
  )
  // the rows as read (a third value past the pair is never looked at): a copy each was ~150k arrays more to collect
  const found: Row[] = [] // left to the TEMP word index
  const sureRows: Row[] = []
  for (const f of scanned) if (f[2] !== 0) (f[2] === 1 ? sureRows : found).push(f as unknown as Row)
  if (!found.length) return { rows: sureRows, asText: '' }
  const ids = found.map((f) => Number(f[1]))
  const table = ids.length <= WORD_CHECK_CAP ? wordIndexOf(db, shape, ids) : null
  const check: Reading = table
    ? { ...scan, src: (t) => (matchedAsSubstring(t.text) ? 'scan' : 'word'), wordTable: table }
    : scan
  const q: unknown[] = [JSON.stringify(ids)]
  let rows: Row[]
  try {
    rows = select(`m.id IN (SELECT value FROM json_each(?)) AND ${condition(tree, check, q as string[])}`, q)
  } finally {
    if (table) clearWordIndex(db, table)
  }
  if (sureRows.length) rows = [...sureRows, ...rows].sort((a, b) => Number(a[1]) - Number(b[1]))
  return {
    rows,
    asText: table ? '' : `(Matched there as text, not word by word: ${ids.length} rows were too many to check.)`
  }
}
