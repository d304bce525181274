/** Row → contract SessionSummary / SessionRef projection shared by list, detail and summary reads. */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import type { SessionRef, SessionSummary } from '@shared/contract'
import { kindOf, pathFromRoot, type LineageRow } from './lineage'
import { moneyOf } from './usage'
import { CHILDREN, isDelegateSql } from './sql'
import { num, numOrNull } from './util'
import { CONTENT_MARKER, decodeContent, displayContent } from './content-codec'

// A preview's first 600 characters. SQLite's text functions stop at a NUL, and upstream's multimodal rows begin with
// one ("\0json:" + JSON): those are cut as bytes (the JSON is ASCII), so previewSource gets the marker and JSON.
const PREVIEW_CUT = `CASE WHEN substr(CAST(m.content AS BLOB), 1, 1) = X'00'
  THEN CAST(substr(CAST(m.content AS BLOB), 1, 600) AS TEXT) ELSE substr(m.content, 1, 600) END`

const PREVIEW_CHARS = 160

/** The row's own columns (extra upstream columns are tolerated because we never SELECT * into this shape). */
const PLAIN = [
  'id',
  'source',
  'title',
  'model',
  'model_config',
  'parent_session_id',
  'message_count',
  'tool_call_count',
  'started_at',
  'ended_at',
  'end_reason',
  'last_activity_at',
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
] as const
export const PLAIN_COLS = PLAIN.map((c) => `s.${c}`).join(', ')

/** One row's columns plus its per-row facts as correlated subqueries (single-row reads: detail, refs). */
export const SUMMARY_COLS = `${PLAIN_COLS},
  (SELECT p.end_reason FROM sessions p WHERE p.id = s.parent_session_id) AS parent_end_reason,
  (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id) AS parent_exists,
  (SELECT count(*) FROM ${CHILDREN} WHERE c.parent_session_id = s.id AND ${isDelegateSql('c')}) AS child_count,
  CASE WHEN s.title IS NULL THEN (${previewSql('s.id')}) END AS preview_raw`

// Upstream's first user message: by time, then id — which the (session_id, timestamp) index every schema
// version has answers in order (ORDER BY id alone sorts all of a session's messages on a v21 home).
function previewSql(idExpr: string): string {
  return `SELECT ${PREVIEW_CUT} FROM messages m WHERE m.session_id = ${idExpr} AND m.role = 'user'
    AND m.content IS NOT NULL ORDER BY m.timestamp, m.id LIMIT 1`
}

/**
 * A list page's per-row facts as columns over its rows `s` (a LEFT JOIN of `sessions par` on the parent): the
 * fields SUMMARY_COLS's subqueries fill, read for the page's rows only, in the page's own statement. An untitled
 * row's preview: where the list index knows its first user message (`s.cad_first`, activity-index.ts) only that row
 * is read — checked to still be a user message of this session with content — else it is found by previewSql's rule
 * and named in `preview_id` for the index to keep.
 */
const KNOWN_FIRST = `FROM messages m WHERE m.id = s.cad_first AND m.session_id = s.id AND m.role = 'user'
  AND m.content IS NOT NULL`
export const PAGE_FACTS = `(SELECT count(*) FROM ${CHILDREN} WHERE c.parent_session_id = s.id AND ${isDelegateSql('c')}) AS child_count,
  par.id IS NOT NULL AS parent_exists, par.end_reason AS parent_end_reason,
  CASE WHEN s.title IS NULL THEN COALESCE((SELECT ${PREVIEW_CUT} ${KNOWN_FIRST}), (${previewSql('s.id')}))
    END AS preview_raw,
  CASE WHEN s.title IS NULL AND NOT EXISTS (SELECT 1 ${KNOWN_FIRST}) THEN (SELECT m.id FROM messages m
    WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL ORDER BY m.timestamp, m.id LIMIT 1)
    END AS preview_id`

/** Where the list's `cad_act`, `cad_started`, `cad_first` (and then PAGE_FACTS) start in a page row. */
export const PAGE_ACT = PLAIN.length

/**
 * A list page row (PLAIN_COLS, cad_act, cad_started, cad_first, PAGE_FACTS as a raw array) as a
 * SummaryRow. One object literal: building it key by key from column names costs more than the query at 100 rows.
 */
export function pageRow(r: unknown[]): SummaryRow & { cad_act: unknown; cad_started: unknown } {
  return {
    id: r[0] as string,
    source: r[1] as string,
    title: r[2],
    model: r[3],
    model_config: r[4] as string | null,
    parent_session_id: r[5] as string | null,
    message_count: r[6],
    tool_call_count: r[7],
    started_at: r[8] as number,
    ended_at: r[9] as number | null,
    end_reason: r[10] as string | null,
    last_activity_at: r[11] as number | null,
    input_tokens: r[12],
    output_tokens: r[13],
    cache_read_tokens: r[14],
    cache_write_tokens: r[15],
    reasoning_tokens: r[16],
    estimated_cost_usd: r[17],
    actual_cost_usd: r[18],
    cost_status: r[19],
    api_call_count: r[20],
    archived: r[21],
    pinned: r[22],
    cad_act: r[23],
    cad_started: r[24],
    child_count: r[26],
    parent_exists: r[27] ? 1 : null,
    parent_end_reason: r[28],
    preview_raw: r[29]
  }
}

/** A page row's first user message, when the page had to find it (the list index did not know it). */
export const pagePreviewId = (r: unknown[]): number | null => (typeof r[30] === 'number' ? r[30] : null)

export type SummaryRow = Record<string, unknown> & LineageRow

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

function trimPreview(text: unknown): string | null {
  if (typeof text !== 'string') return null
  const flat = previewSource(text).replace(/\s+/g, ' ').trim()
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat || null
}

export function previewOf(db: Database.Database, sessionId: string): string | null {
  return trimPreview(stmt(db, previewSql('?')).pluck().get(sessionId))
}

/** `activity`: last activity as the list orders by it (activity-index.ts), when the caller has it. */
export function toSummary(db: Database.Database, profile: string, r: SummaryRow, activity?: number): SessionSummary {
  const parent = r.parent_exists ? ({ end_reason: r.parent_end_reason ?? null } as LineageRow) : undefined
  const kind = kindOf(r, parent)
  const path = kind === 'continuation' ? pathFromRoot(db, r.id) : [r]
  const root = path[0] ?? r
  let title = (r.title as string | null) ?? null
  if (title === null && root.id !== r.id)
    title =
      (stmt(db, 'SELECT title FROM sessions WHERE id = ?').get(root.id) as { title: string | null } | undefined)
        ?.title ?? null
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
    rootId: root.id,
    chainLength: path.length,
    kind,
    parentSessionId: r.parent_session_id ?? null,
    source: String(r.source ?? 'unknown'),
    title,
    // A chain's first user message lives in its root; the tip usually starts with a handoff summary.
    preview: title !== null ? null : root.id === r.id ? trimPreview(r.preview_raw) : previewOf(db, root.id),
    model: (r.model as string | null) ?? null,
    messageCount: num(r.message_count),
    toolCallCount: num(r.tool_call_count),
    startedAt: num(r.started_at),
    endedAt: numOrNull(r.ended_at),
    endReason: r.end_reason ?? null,
    lastActiveAt: activity ?? numOrNull(r.last_activity_at) ?? num(r.started_at),
    tokens,
    cost: moneyOf(r.estimated_cost_usd, r.actual_cost_usd, r.cost_status, used),
    archived: num(r.archived) !== 0,
    pinned: num(r.pinned) !== 0,
    childCount: num(r.child_count)
  }
}

export function summaryById(db: Database.Database, profile: string, id: string): SessionSummary | null {
  const row = stmt(db, `SELECT ${SUMMARY_COLS} FROM sessions s WHERE s.id = ?`).get(id) as SummaryRow | undefined
  return row ? toSummary(db, profile, row) : null
}

export function refOf(db: Database.Database, id: string): SessionRef | null {
  const r = stmt(db, `SELECT ${SUMMARY_COLS} FROM sessions s WHERE s.id = ?`).get(id) as SummaryRow | undefined
  if (!r) return null
  const parent = r.parent_exists ? ({ end_reason: r.parent_end_reason ?? null } as LineageRow) : undefined
  return {
    id: r.id,
    title: (r.title as string | null) ?? null,
    kind: kindOf(r, parent),
    startedAt: num(r.started_at),
    endReason: r.end_reason ?? null,
    messageCount: num(r.message_count)
  }
}
