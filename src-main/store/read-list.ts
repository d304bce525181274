/**
 * The session list: one row per conversation. Compression chains show as their tip (carrying rootId and
 * chainLength); the sessions upstream's list shows — roots and branches (sql.ts shownSql), plus a reset's new
 * conversation — with every other child (subagent runs, a tool's, unmarked ones) hidden unless asked for. Ordered by
 * last activity as upstream defines it (last message time, whoever wrote it; activity-index.ts) and keyset-paginated
 * on (activity DESC, started_at DESC, id DESC), walking the activity index in order, so a page costs ~limit index
 * steps plus one statement for the whole page (its per-row facts included) — never a query per row, never a scan of
 * messages.
 */
import type Database from 'better-sqlite3'
import type { SessionPage, SessionSummary } from '@shared/contract'
import { chainPathSql, supersededSql } from './sql'
import { notePreviewSources, refreshActivity } from './activity-index'
import {
  PAGE_ACT,
  PAGE_COLS,
  PAGE_SELECT,
  pageRow,
  pageStatement,
  toSummary,
  walkStart,
  type PageValues
} from './read-summary'
import { rowsViaJson } from './json-rows'
import { stmt } from './stmt-cache'
import { invalid } from './errors'
import { listed, sessionConditions, type SearchFilters } from './search-match'
import { keptFirstPage } from './read-list-kept'
import { parseJsonOr } from '@shared/contract/errors'

/** The orders the list offers; `active` (last activity, newest first) is the default and the hot path. */
export type ListSort = 'active' | 'started' | 'messages' | 'tokens' | 'cost' | 'title'

/** The Sessions page's filters (the same ones a search applies), plus order and paging. */
export interface ListOptions extends SearchFilters {
  limit?: number
  cursor?: string | null
  sort?: ListSort
  /** Default: `desc`, except `title` (A → Z). */
  dir?: 'asc' | 'desc'
}

type Key = [number, number, string]

export function encodeCursor(k: Key): string {
  return base64url(JSON.stringify(k))
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * `Buffer.from(text, 'utf8').toString('base64url')`, encoded in JS when the text is ASCII (its UTF-8 bytes are its
 * characters): a cursor's ~60 characters through two Buffer bindings cost ~25 µs of a list request made right after
 * another program wrote (nothing of that path in the CPU's caches), here ~1 µs. Anything else goes through Buffer.
 */
function base64url(text: string): string {
  let out = ''
  const n = text.length
  let i = 0
  for (; i + 2 < n; i += 3) {
    const a = text.charCodeAt(i)
    const b = text.charCodeAt(i + 1)
    const c = text.charCodeAt(i + 2)
    if ((a | b | c) > 0x7f) return Buffer.from(text, 'utf8').toString('base64url')
    const v = (a << 16) | (b << 8) | c
    out += B64URL[v >> 18]! + B64URL[(v >> 12) & 63]! + B64URL[(v >> 6) & 63]! + B64URL[v & 63]!
  }
  if (i < n) {
    const a = text.charCodeAt(i)
    const b = i + 1 < n ? text.charCodeAt(i + 1) : 0
    if ((a | b) > 0x7f) return Buffer.from(text, 'utf8').toString('base64url')
    out += B64URL[a >> 2]! + B64URL[((a & 3) << 4) | (b >> 4)]!
    if (i + 1 < n) out += B64URL[(b & 15) << 2]!
  }
  return out
}

export function decodeCursor(c: string): Key {
  const k = parseJsonOr(Buffer.from(c, 'base64url').toString('utf8'), null)
  if (Array.isArray(k) && k.length === 3 && Number.isFinite(k[0]) && Number.isFinite(k[1]) && typeof k[2] === 'string')
    return k as Key
  throw invalid('invalid cursor', 'cursor')
}

export function listSessionRows(db: Database.Database, profile: string, q: ListOptions = {}): SessionPage {
  return listSessionPage(db, profile, q).page
}

/** A sorted page's rows' sort values, in page order (a merged list across profiles compares them). */
export type SortValue = number | string

/**
 * The list page, and for an order other than the default its rows' sort values (`keys`; empty for the default, whose
 * merge across profiles reads the summaries' activity and start).
 */
export function listSessionPage(
  db: Database.Database,
  profile: string,
  q: ListOptions = {}
): { page: SessionPage; keys: SortValue[] } {
  const activity = refreshActivity(db)
  const plan = planOf(activity, q)
  const { limit, sql, args } = plan
  if (plan.order) return sortedPage(db, profile, sql, args, limit, plan.order)
  // The default first page, from the rows the watcher keeps current where it does (read-list-kept.ts)
  const kept = plan.plain ? keptFirstPage(db, profile, activity, plan) : null
  if (kept) {
    const next = kept.next
    return {
      page: { items: kept.items, nextCursor: next ? encodeCursor([next[1], next[2], next[0]]) : null },
      keys: []
    }
  }
  // One statement for the page: its rows come straight off the ordered walk (the filters read them anyway), and
  // each row's facts (parent, delegate-child count, first user message if untitled) are read after the LIMIT,
  // for the page's rows only: a LIMIT subquery on the left of a join is never flattened, so SQLite runs it as a
  // co-routine that yields in walk order and the outer columns are computed per yielded row. A continuation's walk
  // up its chain (`cad_chain`, sql.ts chainPathSql) is a column of the walk itself, computed once per row it yields
  // (the index gives the order: no sort, so no row is computed that the LIMIT drops), which the outer query joins
  // its root on and reads the root's title, flag and first message from — no query per chain row (#22). The LIMIT is a
  // literal (an integer clamped above): SQLite 3.53's planner reads a bound LIMIT's value, which marks the
  // statement for a full re-prepare on every bind — ~15% of a list request. The page reaches JS as one JSON text
  // (json-rows.ts): handing its ~3,000 values over one by one cost more than reading them.
  const rows = rowsViaJson<PageValues>(db, sql, PAGE_SELECT.length, args)
  inWalkOrder(rows)
  const more = rows.length > limit
  const n = Math.min(rows.length, limit)
  const items: SessionSummary[] = []
  const learned: Array<[string, number]> = []
  for (let i = 0; i < n; i++) {
    const { row, previewFound, chain } = pageRow(rows[i])
    if (previewFound !== null) learned.push([row.id, previewFound])
    const s = toSummary(db, profile, row, Number(row.last_activity_at), chain)
    items.push(s)
  }
  notePreviewSources(db, learned)
  const last = n > 0 ? rows[n - 1] : undefined
  return {
    page: {
      items,
      nextCursor: more && last ? encodeCursor([Number(last[PAGE_ACT]), Number(walkStart(last)), String(last[0])]) : null
    },
    keys: []
  }
}

/** A page's statement and its values: what `q` asks, found before any row is read. */
interface Plan {
  /** The list index's table the statement walks (activity-index.ts) */
  activity: string
  order: Order | null
  limit: number
  sql: string
  args: unknown[]
  /** The statement's conditions (`args` are theirs, in order) */
  where: string[]
  /** The default first page (no filter but the list's defaults, no cursor): kept rows may answer it */
  plain: boolean
}

/**
 * Plans per validated input: the dispatcher hands a handler the same frozen object for the same input
 * (host/dispatch/input-memo.ts), so the filters' SQL is put together once for it, not on every request — it is text
 * and bound values taken from `q` alone, never anything read from the file. Any other `q` is planned each time.
 */
const plans = new WeakMap<ListOptions, Plan>()

function planOf(activity: string, q: ListOptions): Plan {
  const frozen = Object.isFrozen(q)
  const kept = frozen ? plans.get(q) : undefined
  if (kept && kept.activity === activity) return kept
  const plan = planFor(activity, q)
  if (frozen) plans.set(q, plan)
  return plan
}

function planFor(activity: string, q: ListOptions): Plan {
  const order = sortOf(q)
  const limit = Math.max(1, Math.min(500, Math.floor(q.limit ?? 100)))
  const ACTIVITY = 'a.act'
  const where: string[] = []
  const args: unknown[] = []
  // An id typed into the filter names one session: a compressed part is listed as itself, not hidden behind its tip
  // (ids reach users from upstream's CLI, logs and the Costs page, which count parts separately). With the children
  // filter on every session is a row of its own, compressed parts too, as upstream's include_children lists them.
  if (!q.idPrefix && !q.includeChildren) where.push(NOT_SUPERSEDED)
  // The search's filters, with the list's defaults (archived and child sessions left out unless asked for); the
  // activity walk keeps the planner off the source index (walk in order, stop at a page, no sort of every match).
  const filters = listed({ ...q, archived: q.archived ?? 'exclude', includeChildren: q.includeChildren ?? false })
  where.push(...sessionConditions(filters, args, { walkingActivity: true }))
  if (q.from !== undefined) {
    where.push(`${ACTIVITY} >= ?`)
    args.push(q.from)
  }
  if (q.to !== undefined) {
    where.push(`${ACTIVITY} <= ?`)
    args.push(q.to)
  }
  if (order) {
    if (q.cursor) {
      const [value, id] = decodeSortCursor(q.cursor, order)
      where.push(`(${SORT_SQL[order.sort]}, a.id) ${order.dir === 'desc' ? '<' : '>'} (?, ?)`)
      args.push(value, id)
    }
    return {
      activity,
      order,
      limit,
      sql: sortedSql(activity, where.join(' AND '), limit, order),
      args,
      where,
      plain: false
    }
  }
  if (q.cursor) {
    // Row-value comparison lets SQLite seek the expression index instead of re-scanning earlier pages.
    where.push(`(${ACTIVITY}, a.started, a.id) < (?, ?, ?)`)
    args.push(...decodeCursor(q.cursor))
  }
  return { activity, order, limit, sql: pageSql(activity, where, limit), args, where, plain: isPlain(q) }
}

/** No filter but the list's defaults and no cursor: the page the Sessions page opens on (and re-reads on a change). */
function isPlain(q: ListOptions): boolean {
  return (
    !q.cursor &&
    !q.sources?.length &&
    q.excludeSources === undefined &&
    (q.archived === undefined || q.archived === 'exclude') &&
    !q.includeChildren &&
    q.from === undefined &&
    q.to === undefined &&
    !q.idPrefix
  )
}

/**
 * What each order sorts on, over the walk's row `a` and the session `s` — the values the list shows, as far as SQL
 * has them: tokens are the five counts summed; cost is the row's or its usage routes' (auxiliary calls), whichever is
 * more, as the list's cost reads them (read-summary.ts sessionMoney), with unpriced usage as 0 and the user's own
 * prices (applied after the read) left out; a title is the session's own or, untitled, its first user message, which
 * is what the row shows (a chain's tip is sorted by its own, not its root's).
 */
const SORT_SQL: Record<ListSort, string> = {
  active: 'a.act',
  started: 'a.started',
  messages: 'COALESCE(s.message_count, 0)',
  tokens: `(COALESCE(s.input_tokens, 0) + COALESCE(s.output_tokens, 0) + COALESCE(s.cache_read_tokens, 0)
    + COALESCE(s.cache_write_tokens, 0) + COALESCE(s.reasoning_tokens, 0))`,
  cost: `MAX(COALESCE(s.estimated_cost_usd, 0) + COALESCE(s.actual_cost_usd, 0),
    COALESCE((SELECT SUM(COALESCE(u.estimated_cost_usd, 0) + COALESCE(u.actual_cost_usd, 0))
      FROM session_model_usage u WHERE u.session_id = s.id), 0))`,
  title: `lower(ltrim(COALESCE(NULLIF(trim(s.title), ''), (SELECT substr(m.content, 1, 200) FROM messages m
    WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL AND COALESCE(m.display_kind, '') <> 'hidden'
    ORDER BY m.timestamp, m.id LIMIT 1), '')))`
}
const SORTS = Object.keys(SORT_SQL) as ListSort[]

interface Order {
  sort: ListSort
  dir: 'asc' | 'desc'
}

/** The order asked for; null for the default (last activity, newest first), which keeps its own statement. */
function sortOf(q: ListOptions): Order | null {
  const sort = q.sort ?? 'active'
  const dir = q.dir ?? (sort === 'title' ? 'asc' : 'desc')
  if (!SORTS.includes(sort)) throw invalid(`unknown sort '${String(sort)}'`, 'sort')
  return sort === 'active' && dir === 'desc' ? null : { sort, dir }
}

/** A sorted page's cursor names its order, so a cursor from another order is refused rather than misread. */
function encodeSortCursor(o: Order, value: SortValue, id: string): string {
  return Buffer.from(JSON.stringify([o.sort, o.dir, value, id]), 'utf8').toString('base64url')
}

/** The cursor that resumes `q`'s order right after the row with this sort value and id (a merged list's next page). */
export function sortCursorAfter(q: ListOptions, value: SortValue, id: string): string {
  const o = sortOf(q)
  if (!o) throw new Error('sortCursorAfter needs an order other than the default')
  return encodeSortCursor(o, value, id)
}

/** Two sort values as SQLite orders them: numbers by value, text by its UTF-8 bytes (BINARY collation). */
export function compareSortValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'number') return -1 // SQLite: numbers before text
  if (typeof b === 'number') return 1
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

function decodeSortCursor(c: string, o: Order): [SortValue, string] {
  try {
    const k = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'))
    if (
      Array.isArray(k) &&
      k.length === 4 &&
      k[0] === o.sort &&
      k[1] === o.dir &&
      (typeof k[2] === 'string' || Number.isFinite(k[2])) &&
      typeof k[3] === 'string'
    )
      return [k[2] as SortValue, k[3] as string]
  } catch {
    /* fall through */
  }
  throw invalid('invalid cursor', 'cursor')
}

/**
 * A page in another order: every matching row's sort value is computed and sorted (no index holds these orders),
 * then the page's facts are read for its rows only, as on the default path. Keyset-paginated on (value, id).
 */
function sortedPage(
  db: Database.Database,
  profile: string,
  sql: string,
  args: unknown[],
  limit: number,
  o: Order
): { page: SessionPage; keys: SortValue[] } {
  const rows = rowsViaJson<[...PageValues, SortValue]>(db, sql, PAGE_SELECT.length + 1, args)
  const more = rows.length > limit
  const n = Math.min(rows.length, limit)
  const items: SessionSummary[] = []
  const keys: SortValue[] = []
  for (let i = 0; i < n; i++) {
    const { row, chain } = pageRow(rows[i]!)
    items.push(toSummary(db, profile, row, Number(row.last_activity_at), chain))
    keys.push(rows[i]![PAGE_SELECT.length] as SortValue)
  }
  const last = n > 0 ? rows[n - 1] : undefined
  return {
    page: {
      items,
      nextCursor: more && last ? encodeSortCursor(o, last[PAGE_SELECT.length] as SortValue, String(last[0])) : null
    },
    keys
  }
}

function sortedSql(activity: string, where: string, limit: number, o: Order): string {
  const key = `${o.sort} ${o.dir} ${activity} ${limit} ${where}`
  let sql = pageSqls.get(key)
  if (sql === undefined) {
    if (pageSqls.size >= 64) pageSqls.clear()
    const dir = o.dir === 'desc' ? 'DESC' : 'ASC'
    // The sort reads only the walk's row and the value: the page's columns and a continuation's chain walk are read
    // for the page's rows alone, after the LIMIT (a sorter would compute every selected column for every match).
    sql = `SELECT ${PAGE_SELECT.map((e, i) => `${e} AS c${i}`).join(', ')}, s.cad_key AS c${PAGE_SELECT.length} FROM (
      SELECT ${PAGE_COLS}, k.act AS cad_act, k.started AS cad_started, k.first_user AS cad_first,
        CASE WHEN s.parent_session_id IS NOT NULL THEN ${chainPathSql('s')} END AS cad_chain, k.cad_key
      FROM (SELECT a.id, a.act, a.started, a.first_user, ${SORT_SQL[o.sort]} AS cad_key
        FROM ${activity} a CROSS JOIN sessions s ON s.id = a.id
        WHERE ${where} ORDER BY cad_key ${dir}, a.id ${dir} LIMIT ${limit + 1}) k
      CROSS JOIN sessions s ON s.id = k.id) s
    LEFT JOIN sessions par ON par.id = s.parent_session_id
    LEFT JOIN sessions rt ON rt.id = substr(s.cad_chain, instr(s.cad_chain, ' ') + 1)
    ORDER BY s.cad_key ${dir}, s.id ${dir}`
    pageSqls.set(key, sql)
  }
  return sql
}

/**
 * Every source of the profile's sessions but upstream's hidden internal ones (no filter lists those), sorted: the
 * source index walked from one distinct value to the next (a few index seeks per source, not a scan of the table).
 */
export function sessionSources(db: Database.Database): string[] {
  return stmt(
    db,
    `WITH RECURSIVE src(v) AS (
       SELECT MIN(source) FROM sessions
       UNION ALL SELECT (SELECT MIN(source) FROM sessions WHERE source > src.v) FROM src WHERE src.v IS NOT NULL
     )
     SELECT v FROM src WHERE v IS NOT NULL
       AND EXISTS (SELECT 1 FROM sessions h WHERE h.source = src.v AND COALESCE(h.hidden, 0) = 0)`
  )
    .pluck()
    .all()
    .map(String)
}

/** The list's hiding of a superseded compression part, as one string (its hash kept: pageSql's key below). */
const NOT_SUPERSEDED = `NOT ${supersededSql('s')}`

/**
 * The page's statement text per (index table, filters' SQL, limit): built once, so each request hands the statement
 * cache (and rowsViaJson's wrapper) the same string, whose hash V8 keeps — building ~6 KB of SQL and hashing it
 * anew on every request cost ~30 µs, 5% of a page. Only text is kept here, never a value read from the file.
 * Found by the numbers of its WHERE parts (`partIds`), not their text: the parts are the same strings each time
 * (sql.ts builds each once), whose hashes V8 keeps, where their joined text would be a new ~6 KB string to copy and
 * hash on every request.
 */
const pageSqls = new Map<string, string>()
const partIds = new Map<string, number>()
function pageSql(activity: string, parts: string[], limit: number): string {
  let key = `${activity} ${limit}`
  for (const part of parts) {
    let id = partIds.get(part)
    if (id === undefined) {
      if (partIds.size >= 256) {
        // numbers are reused after this: the statements keyed by the old ones go with them
        partIds.clear()
        pageSqls.clear()
      }
      partIds.set(part, (id = partIds.size))
    }
    key += ` ${id}`
  }
  let sql = pageSqls.get(key)
  if (sql === undefined) {
    if (pageSqls.size >= 64) pageSqls.clear() // filter combinations (IN-list lengths) could otherwise grow it
    const where = parts.join(' AND ')
    sql = pageStatement(activity, `WHERE ${where} ORDER BY a.act DESC, a.started DESC, a.id DESC LIMIT ${limit + 1}`)
    pageSqls.set(key, sql)
  }
  return sql
}

/** SQLite's order of ids: their UTF-8 bytes (JS compares UTF-16 units, which differs past the BMP). */
const idAfter = (a: unknown, b: unknown) => Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b))) > 0
const K = PAGE_ACT
const before = (x: PageValues, y: PageValues) => {
  if (x[K] !== y[K]) return (x[K] as number) > (y[K] as number)
  const xs = walkStart(x)
  const ys = walkStart(y)
  return (xs as number) > (ys as number) || (xs === ys && idAfter(x[0], y[0]))
}

/** The co-routine yields rows in walk order; should a future planner not, the page is put back in that order. */
function inWalkOrder(rows: PageValues[]): void {
  for (let i = 1; i < rows.length; i++)
    if (!before(rows[i - 1]!, rows[i]!)) {
      rows.sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0))
      return
    }
}
