/** Row → contract SessionSummary / SessionRef projection shared by list, detail and summary reads. */
import type Database from 'better-sqlite3'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { sessions } from './schema'
import type { Money, SessionRef, SessionSummary } from '@shared/contract'
import { usdToMicros } from '@shared/contract/money'
import { kindOf, pathFromRoot, type LineageRow } from './lineage'
import { moneyOf } from './usage'
import { CHAIN_STEPS, CHILDREN, chainPathSql, isDelegateSql } from './sql'
import { num, numOrNull } from './util'
import { CONTENT_MARKER, decodeContent, displayContent } from './content-codec'

// A preview's first 600 characters. SQLite's text functions stop at a NUL, and upstream's multimodal rows begin with
// one ("\0json:" + JSON): those are cut as bytes (the JSON is ASCII), so previewSource gets the marker and JSON.
const PREVIEW_CUT = `CASE WHEN substr(CAST(m.content AS BLOB), 1, 1) = X'00'
  THEN CAST(substr(CAST(m.content AS BLOB), 1, 600) AS TEXT) ELSE substr(m.content, 1, 600) END`

const PREVIEW_CHARS = 160

type Session = typeof sessions.$inferSelect

/**
 * The row's own columns a list page reads: the summary's (PLAIN) but `model_config`, read only where a parent makes it
 * matter for the kind (a page fact), and `last_activity_at`, for which the list's activity stands in.
 */
const PAGE_OWN = [
  'id',
  'source',
  'title',
  'model',
  'parent_session_id',
  'message_count',
  'tool_call_count',
  'started_at',
  'ended_at',
  'end_reason',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated_cost_usd',
  'actual_cost_usd',
  'cost_status',
  'api_call_count',
  'archived',
  'pinned'
] as const satisfies readonly (keyof Session)[]
/** The row's own columns (extra upstream columns are tolerated because we never SELECT * into this shape). */
const PLAIN = [...PAGE_OWN, 'model_config', 'last_activity_at'] as const satisfies readonly (keyof Session)[]
export const PLAIN_COLS = PLAIN.map((c) => `s.${c}`).join(', ')

/**
 * The parent's end reason as kindOf reads it from a summary, which carries no times: 'branched' only when the
 * parent ended so before this child started (upstream's legacy /branch rule), else a reason no rule matches.
 */
const PARENT_END = (
  p: string
) => `CASE WHEN ${p}.end_reason = 'branched' AND COALESCE(s.started_at >= ${p}.ended_at, 0) = 0
  THEN 'branched (not before this child)' ELSE ${p}.end_reason END`

/**
 * A session's usage routes summed, as "<estimated> <actual>" (NULL: no route rows). Upstream records an auxiliary
 * call (title generation, compression, vision…) only as a route row, never in the sessions row, and its own cost
 * report (insights) counts a session's spend as its routes plus whatever the row holds beyond them: so does every
 * cost Caduceus shows (sessionMoney here, ownPieces in costs/).
 */
const ROUTES_SQL = `(SELECT SUM(u.estimated_cost_usd) || ' ' || SUM(u.actual_cost_usd)
  FROM session_model_usage u WHERE u.session_id = s.id)`

// A preview's candidates: user messages with content, except a row upstream marks display_kind 'hidden' (scaffolding
// no client shows; upstream's own preview skips it too).
const PREVIEWABLE = `m.role = 'user' AND m.content IS NOT NULL AND COALESCE(m.display_kind, '') <> 'hidden'`

/** One row's columns plus its per-row facts as correlated subqueries (single-row reads: detail, refs). */
export const SUMMARY_COLS = `${PLAIN_COLS},
  (SELECT ${PARENT_END('p')} FROM sessions p WHERE p.id = s.parent_session_id) AS parent_end_reason,
  (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id) AS parent_exists,
  (SELECT count(*) FROM ${CHILDREN} WHERE c.parent_session_id = s.id AND ${isDelegateSql('c')}) AS child_count,
  CASE WHEN s.title IS NULL THEN (${previewSql('s.id')}) END AS preview_raw,
  ${ROUTES_SQL} AS routes_raw`

// Upstream's first user message: by time, then id — which the (session_id, timestamp) index every schema
// version has answers in order (ORDER BY id alone sorts all of a session's messages on a v21 home).
function previewSql(idExpr: string): string {
  return `SELECT ${PREVIEW_CUT} FROM messages m WHERE m.session_id = ${idExpr} AND ${PREVIEWABLE}
    ORDER BY m.timestamp, m.id LIMIT 1`
}

/**
 * A list page's columns over its rows `s` (the ordered walk's output, with a LEFT JOIN of `sessions par` on the
 * parent), as few values as the summary needs — each value a page hands to JS costs time (json-rows.ts), and a page
 * has 100 rows: the row's own columns (PAGE_OWN), then the facts (PAGE_FACTS): the walk's activity and start (the
 * latter only where it is not the row's own `started_at`), `model_config` where a parent makes it matter for the kind,
 * the parent's end reason (NULL: no parent row; 0: a parent without one), the delegate-child count and, for an
 * untitled row, its first user message. Where the list index knows that message (`s.cad_first`, activity-index.ts)
 * only that row is read — checked to still be a user message of this session with content — and handed over as
 * ":<first 600 characters>"; else it is found by previewSql's rule, as "<message id>:<first 600 characters>", and
 * its id tells the index where to look next time.
 */
const KNOWN_FIRST = `FROM messages m WHERE m.id = s.cad_first AND m.session_id = s.id AND ${PREVIEWABLE}`
/** The columns the list's ordered walk hands on, besides its own (`cad_act`, `cad_started`, `cad_first`). */
export const PAGE_COLS = [...PAGE_OWN, 'model_config'].map((c) => `s.${c}`).join(', ')

/** What a page reads beside the row's own columns: each fact's value as SQLite hands it over. */
interface PageFacts {
  /** The list's activity (`cad_act`, activity-index.ts): the summary's `last_activity_at`. */
  act: number
  /** The list index's start, NULL where it equals the row's `started_at` (nearly every row): one number less to hand over. */
  started: number | null
  modelConfig: Session['model_config']
  /** NULL: no parent row; 0: a parent without an end reason. */
  parentEnd: Session['end_reason'] | 0
  childCount: number
  /**
   * An untitled row's first user message, as ":<first 600 characters>" where the list index knew it, else as
   * "<message id>:<first 600 characters>" (the index learns that id).
   */
  preview: string | null
  /** A continuation's walk up its chain (sql.ts chainPathSql): "[+]<steps> <root id>". */
  walk: string | null
  rootTitle: Session['title']
  rootArchived: Session['archived'] | null
  rootPreview: string | null
  /** ROUTES_SQL's "<estimated> <actual>". */
  routes: string | null
}

/** The facts' SQL, in the order a page row carries their values after the row's own columns. */
const PAGE_FACTS = [
  ['act', 's.cad_act'],
  ['started', 'NULLIF(s.cad_started, s.started_at)'],
  ['modelConfig', 'CASE WHEN s.parent_session_id IS NOT NULL THEN s.model_config END'],
  ['parentEnd', `CASE WHEN par.id IS NOT NULL THEN COALESCE(${PARENT_END('par')}, 0) END`],
  ['childCount', `(SELECT count(*) FROM ${CHILDREN} WHERE c.parent_session_id = s.id AND ${isDelegateSql('c')})`],
  [
    'preview',
    `CASE WHEN s.title IS NULL THEN COALESCE((SELECT ':' || ${PREVIEW_CUT} ${KNOWN_FIRST}),
    (SELECT m.id || ':' || ${PREVIEW_CUT} FROM messages m WHERE m.session_id = s.id AND ${PREVIEWABLE}
      ORDER BY m.timestamp, m.id LIMIT 1)) END`
  ],
  // A continuation's chain (read-list.ts: `s.cad_chain`, sql.ts chainPathSql, with `sessions rt` joined on its root):
  // the walk, then the root's title, archived flag and — when neither the row nor the root has a title — its first
  // user message, so toSummary looks nothing up per row (#22).
  ['walk', 's.cad_chain'],
  ['rootTitle', 'rt.title'],
  ['rootArchived', 'rt.archived'],
  ['rootPreview', `CASE WHEN s.title IS NULL AND rt.title IS NULL AND rt.id <> s.id THEN (${previewSql('rt.id')}) END`],
  ['routes', ROUTES_SQL]
] as const satisfies ReadonlyArray<readonly [keyof PageFacts, string]>

/** The names of a list of [name, SQL] pairs, as a tuple. */
type NamesOf<T extends ReadonlyArray<readonly [string, string]>> = { -readonly [I in keyof T]: T[I][0] }
/** The schema's type of each column named, as a tuple. */
type ColumnValues<K extends ReadonlyArray<keyof Session>> = { -readonly [I in keyof K]: Session[K[I]] }
/** Each fact's type, as a tuple. */
type FactValues<K extends ReadonlyArray<keyof PageFacts>> = { -readonly [I in keyof K]: PageFacts[K[I]] }
/** A tuple's names → their places, as literal numbers. */
type IndexOf<T extends readonly string[]> = {
  readonly [I in keyof T as I extends `${number}` ? T[I] : never]: I extends `${infer N extends number}` ? N : never
}

type Facts = NamesOf<typeof PAGE_FACTS>
/**
 * A page row's values, in PAGE_SELECT's order, each typed by its column in the schema or by PageFacts: what the
 * page's statement yields (`rowsViaJson<PageValues>`), so `pageRow` reads them without a cast.
 */
export type PageValues = [...ColumnValues<typeof PAGE_OWN>, ...FactValues<Facts>]

/** A page row's values, in order: what `pageRow` reads. */
export const PAGE_SELECT = [...PAGE_OWN.map((c) => `s.${c}`), ...PAGE_FACTS.map(([, sql]) => sql)]
const at = Object.fromEntries(
  [...PAGE_OWN, ...PAGE_FACTS.map(([name]) => name)].map((name, i) => [name, i])
) as IndexOf<[...typeof PAGE_OWN, ...Facts]>

/**
 * The messages named (a JSON array of ids) as a preview reads them: id, session and, where the message could be one,
 * its first 600 characters (list-kept.ts compares them with a kept row's preview).
 */
export const PREVIEWS_BY_ID = `SELECT m.id, m.session_id, CASE WHEN ${PREVIEWABLE} THEN ${PREVIEW_CUT} END
  FROM messages m WHERE m.id IN (SELECT value FROM json_each(?))`
/** The sessions named (a JSON array of ids) and their usage routes summed as a page row reads them (ROUTES_SQL). */
export const ROUTES_BY_ID = `SELECT s.id, ${ROUTES_SQL} FROM sessions s WHERE s.id IN (SELECT value FROM json_each(?))`

/**
 * A list page's statement: the walk of the list index `activity` (as `a`) joined to its sessions `s`, narrowed and
 * ordered by `tail` (its WHERE …, ORDER BY …, LIMIT …), with each row's columns and chain walk (`cad_chain`, sql.ts
 * chainPathSql) — then PAGE_SELECT's values over it, the parent `par` and the chain's root `rt` joined after the walk,
 * for the walk's rows only. `inner`/`outer`: more columns inside the walk and after PAGE_SELECT's (read-list-kept.ts).
 */
export function pageStatement(activity: string, tail: string, more: { inner?: string; outer?: string } = {}): string {
  return `SELECT ${PAGE_SELECT.map((e, i) => `${e} AS c${i}`).join(', ')}${more.outer ?? ''} FROM (
      SELECT ${PAGE_COLS}, a.act AS cad_act, a.started AS cad_started, a.first_user AS cad_first,
        CASE WHEN s.parent_session_id IS NOT NULL THEN ${chainPathSql('s')} END AS cad_chain${more.inner ?? ''}
      FROM ${activity} a CROSS JOIN sessions s ON s.id = a.id
      ${tail}) s
    LEFT JOIN sessions par ON par.id = s.parent_session_id
    LEFT JOIN sessions rt ON rt.id = substr(s.cad_chain, instr(s.cad_chain, ' ') + 1)`
}

/** Where a page row's activity (`cad_act`) is. */
export const PAGE_ACT = at.act
/**
 * A page row's start as the list index orders it (the keyset's second value): handed over only where it differs
 * from the row's own `started_at` (PageFacts.started).
 */
export const walkStart = (r: readonly [...PageValues, ...unknown[]]) => r[at.started] ?? r[at.started_at]

/**
 * A list page row (PAGE_SELECT's values, as an array; a sorted page's carries its sort value after them) as a
 * SummaryRow — its `last_activity_at` the list's activity — and the first user message's id when the page had to look
 * it up (the list index did not know it or it moved). One object literal: building it key by key from column names
 * costs more than the query at 100 rows.
 */
export function pageRow(r: readonly [...PageValues, ...unknown[]]): {
  row: SummaryRow
  previewFound: number | null
  chain: ChainFacts | null
} {
  const parentEnd = r[at.parentEnd]
  const preview = r[at.preview]
  let previewRaw: string | null = null
  let previewFound: number | null = null
  if (typeof preview === 'string') {
    const cut = preview.indexOf(':')
    previewRaw = preview.slice(cut + 1)
    if (cut > 0) previewFound = Number(preview.slice(0, cut))
  }
  const row: SummaryRow = {
    id: r[at.id],
    source: r[at.source],
    title: r[at.title],
    model: r[at.model],
    model_config: r[at.modelConfig],
    parent_session_id: r[at.parent_session_id],
    message_count: r[at.message_count],
    tool_call_count: r[at.tool_call_count],
    started_at: r[at.started_at],
    ended_at: r[at.ended_at],
    end_reason: r[at.end_reason],
    last_activity_at: r[at.act],
    input_tokens: r[at.input_tokens],
    output_tokens: r[at.output_tokens],
    cache_read_tokens: r[at.cache_read_tokens],
    cache_write_tokens: r[at.cache_write_tokens],
    reasoning_tokens: r[at.reasoning_tokens],
    estimated_cost_usd: r[at.estimated_cost_usd],
    actual_cost_usd: r[at.actual_cost_usd],
    cost_status: r[at.cost_status],
    api_call_count: r[at.api_call_count],
    archived: r[at.archived],
    pinned: r[at.pinned],
    child_count: r[at.childCount],
    parent_exists: parentEnd === null ? null : 1,
    parent_end_reason: parentEnd === 0 ? null : parentEnd,
    preview_raw: previewRaw,
    routes_raw: r[at.routes]
  }
  const walk = r[at.walk]
  let chain: ChainFacts | null = null
  if (typeof walk === 'string') {
    const cut = walk.indexOf(' ')
    const continuation = walk.startsWith('+')
    chain = {
      rootId: walk.slice(cut + 1),
      length: Number(walk.slice(continuation ? 1 : 0, cut)) + 1,
      passedOver: continuation && walk.startsWith('+0 '),
      title: r[at.rootTitle],
      archived: r[at.rootArchived],
      previewRaw: r[at.rootPreview]
    }
  }
  return { row, previewFound, chain }
}

/**
 * A continuation's chain, as the list page read it or toSummary looks it up: the root (the first session), the
 * number of sessions from it to this one, the root's title and archived flag, and the root's first user message
 * (as read, uncut) when the summary needs it — neither this row nor the root titled — else anything.
 */
interface ChainFacts {
  rootId: string
  length: number
  /** The page's walk saw a continuation its parent's chain did not go on through: its own root, settled. */
  passedOver?: boolean
  title: Session['title']
  archived: Session['archived'] | null
  previewRaw: string | null
}

/**
 * `r`'s chain looked up row by row (single-row reads; and a page's walk that met a loop, which pathFromRoot settles),
 * through chosen continuations only, as the list's filter judges the row (a passed-over sibling is its own root).
 */
function chainLookup(db: Database.Database, r: SummaryRow): ChainFacts {
  const path = pathFromRoot(db, r.id, { chosen: true })
  const root = path[0] ?? r
  const facts: ChainFacts = {
    rootId: root.id,
    length: path.length,
    title: null,
    archived: r.archived,
    previewRaw: null
  }
  if (root.id === r.id) return facts
  const first = stmt<ColumnsOf<typeof sessions, 'title' | 'archived'>>(
    db,
    'SELECT title, archived FROM sessions WHERE id = ?'
  ).get(root.id)
  if (first) {
    facts.title = first.title
    facts.archived = first.archived
  }
  if ((r.title ?? facts.title ?? null) === null)
    facts.previewRaw = stmt<string>(db, previewSql('?')).pluck().get(root.id) ?? null
  return facts
}

/**
 * A summary's row: the session's own columns (PLAIN) as the schema types them, and the facts SUMMARY_COLS reads
 * beside them (a list page reads the same from its own values, pageRow).
 */
export type SummaryRow = ColumnsOf<typeof sessions, (typeof PLAIN)[number]> & {
  /** The parent's end reason as kindOf reads it from a summary (PARENT_END); null: none, or no parent row. */
  parent_end_reason: Session['end_reason']
  /** 1 when the parent's row exists. */
  parent_exists: 1 | null
  /** Delegate children. */
  child_count: number
  /** An untitled row's first user message, its first 600 characters. */
  preview_raw: string | null
  /** ROUTES_SQL's "<estimated> <actual>". */
  routes_raw: string | null
}

/**
 * What a preview reads. Upstream stores a multimodal message as its marker + JSON, and a page reads only the first
 * 600 characters, which usually end inside an image's data URL: decoded whole when it fits, else its text parts are
 * taken from that prefix, in order, with `[image]` for each image part begun there. Never the raw JSON or its NUL.
 */
function previewSource(raw: string): string {
  // Whole — plain text, or a marked message the cut kept entire — it reads as the transcript shows it.
  if (!raw.startsWith(CONTENT_MARKER) || decodeContent(raw) !== raw) return displayContent(raw) ?? ''
  const parts: string[] = []
  for (const m of raw.matchAll(/"text": ("(?:[^"\\]|\\.)*")|"type": "(?:input_)?(image|audio|file)/g))
    parts.push(m[1] ? (JSON.parse(m[1]) as string) : `[${m[2]}]`)
  return parts.join(' ')
}

/** Whitespace runs as one space, trimmed. */
const flatten = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * How much of a plain text a preview flattens first. Flattening is local (a run of whitespace becomes one space), so
 * a head's flattened form is the whole's flattened form cut short, but for a trailing space trim removes: once the
 * head alone flattens to more than PREVIEW_CHARS, the preview is decided by it. Most first messages are, so a page
 * runs its two passes (NULs, whitespace) over this many characters of each untitled row rather than all 600 read.
 */
const PREVIEW_HEAD = 2 * PREVIEW_CHARS

/** What flattening or the NUL's symbol would change inside a text: a NUL, whitespace but a plain space, two spaces. */
const UNFLAT = /\0|[^\S ]| {2}/

function trimPreview(text: unknown): string | null {
  if (typeof text !== 'string') return null
  // Most first messages are plain text with single spaces, which flatten to themselves trimmed: one scan of the head,
  // no copies (a page has dozens of untitled rows).
  if (!text.startsWith(CONTENT_MARKER)) {
    const head = text.length > PREVIEW_HEAD ? text.slice(0, PREVIEW_HEAD) : text
    if (!UNFLAT.test(head)) {
      const flat = head.trim()
      if (flat.length > PREVIEW_CHARS) return `${flat.slice(0, PREVIEW_CHARS - 1)}…`
      if (head === text) return flat || null
    }
  }
  if (text.length > PREVIEW_HEAD && !text.startsWith(CONTENT_MARKER)) {
    const head = flatten(displayContent(text.slice(0, PREVIEW_HEAD)) ?? '')
    if (head.length > PREVIEW_CHARS) return `${head.slice(0, PREVIEW_CHARS - 1)}…`
  }
  const flat = flatten(previewSource(text))
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat || null
}

/** Below this many micro-dollars a sessions row's excess over its routes is rounding, not spend (costs/pieces.ts). */
const GAP_MICROS = 100

/**
 * A session's own cost by upstream's rule: its usage routes (auxiliary calls included), plus what the sessions row
 * records beyond them; the row alone when there are no routes. The row's status stands (its unpriced/partial flags
 * are upstream's), except that a row with no price of its own takes the routes' price.
 */
function sessionMoney(r: SummaryRow, used: boolean): Money {
  const row = moneyOf(r.estimated_cost_usd, r.actual_cost_usd, r.cost_status, used)
  if (typeof r.routes_raw !== 'string') return row
  const [est, act] = r.routes_raw.split(' ').map(Number)
  const routed = usdToMicros((Number.isFinite(est) ? est! : 0) + (Number.isFinite(act) ? act! : 0))
  const own = row.usd === null ? null : usdToMicros(row.usd)
  if (own !== null && own - routed > GAP_MICROS) return row
  if (routed === 0) return row
  if (row.status === 'none' || row.status === 'unpriced')
    return {
      usd: routed / 1e6,
      status: row.status === 'unpriced' ? 'partial' : 'estimated',
      complete: row.status !== 'unpriced'
    }
  return { ...row, usd: routed / 1e6 }
}

/**
 * `activity`: last activity as the list orders by it (activity-index.ts), when the caller has it. `walked`: the
 * row's chain as the list page read it (pageRow), used when it settled one: a walk cut short at CHAIN_STEPS (a
 * loop, which only pathFromRoot's check settles), or one that took no step where kindOf sees a continuation (SQL and
 * JSON.parse reading a malformed marker differently), is looked up as a single-row read does.
 */
export function toSummary(
  db: Database.Database,
  profile: string,
  r: SummaryRow,
  activity?: number,
  walked?: ChainFacts | null
): SessionSummary {
  const parent = r.parent_exists ? ({ end_reason: r.parent_end_reason ?? null } as LineageRow) : undefined
  const kind = kindOf(r, parent)
  const chain =
    kind !== 'continuation'
      ? null
      : walked && (walked.length > 1 || walked.passedOver) && walked.length <= CHAIN_STEPS
        ? walked
        : chainLookup(db, r)
  const rootId = chain?.rootId ?? r.id
  let title = r.title ?? null
  let archived = num(r.archived) !== 0
  if (chain && rootId !== r.id) {
    // A chain is archived as a whole by its root's flag (sql.ts archivedSql); its title falls back to the root's.
    title ??= chain.title ?? null
    archived = num(chain.archived) !== 0
  }
  const tokens = {
    input: num(r.input_tokens),
    output: num(r.output_tokens),
    cacheRead: num(r.cache_read_tokens),
    cacheWrite: num(r.cache_write_tokens),
    reasoning: num(r.reasoning_tokens)
  }
  const used = num(r.api_call_count) > 0 || tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite > 0
  return {
    profile,
    id: r.id,
    rootId,
    chainLength: chain?.length ?? 1,
    kind,
    parentSessionId: r.parent_session_id ?? null,
    source: String(r.source ?? 'unknown'),
    title,
    // A chain's first user message lives in its root; the tip usually starts with a handoff summary.
    preview: title !== null ? null : trimPreview(rootId === r.id ? r.preview_raw : chain?.previewRaw),
    model: r.model ?? null,
    messageCount: num(r.message_count),
    toolCallCount: num(r.tool_call_count),
    startedAt: num(r.started_at),
    endedAt: numOrNull(r.ended_at),
    endReason: r.end_reason ?? null,
    lastActiveAt: numOrNull(activity) ?? numOrNull(r.last_activity_at) ?? num(r.started_at),
    tokens,
    cost: sessionMoney(r, used),
    archived,
    pinned: num(r.pinned) !== 0,
    childCount: num(r.child_count)
  }
}

export function summaryById(db: Database.Database, profile: string, id: string): SessionSummary | null {
  const row = stmt<SummaryRow>(db, `SELECT ${SUMMARY_COLS} FROM sessions s WHERE s.id = ?`).get(id)
  return row ? toSummary(db, profile, row) : null
}

export function refOf(db: Database.Database, id: string): SessionRef | null {
  const r = stmt<SummaryRow>(db, `SELECT ${SUMMARY_COLS} FROM sessions s WHERE s.id = ?`).get(id)
  if (!r) return null
  const parent = r.parent_exists ? ({ end_reason: r.parent_end_reason ?? null } as LineageRow) : undefined
  return {
    id: r.id,
    title: r.title ?? null,
    kind: kindOf(r, parent),
    startedAt: num(r.started_at),
    endReason: r.end_reason ?? null,
    messageCount: num(r.message_count)
  }
}
