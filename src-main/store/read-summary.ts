/** Row → contract SessionSummary / SessionRef projection shared by list, detail and summary reads. */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import type { SessionRef, SessionSummary } from '@shared/contract'
import { kindOf, pathFromRoot, type LineageRow } from './lineage'
import { moneyOf } from './usage'
import { CHILDREN, isDelegateSql } from './sql'
import { num, numOrNull } from './util'

const PREVIEW_CHARS = 160

/** The row's own columns (extra upstream columns are tolerated because we never SELECT * into this shape). */
export const PLAIN_COLS = `s.id, s.source, s.title, s.model, s.model_config, s.parent_session_id, s.message_count, s.tool_call_count,
  s.started_at, s.ended_at, s.end_reason, s.last_activity_at, s.input_tokens, s.output_tokens, s.cache_read_tokens,
  s.cache_write_tokens, s.reasoning_tokens, s.estimated_cost_usd, s.actual_cost_usd, s.cost_status, s.api_call_count,
  s.archived, s.pinned`

/** One row's columns plus its per-row facts as correlated subqueries (single-row reads: detail, refs). */
export const SUMMARY_COLS = `${PLAIN_COLS},
  (SELECT p.end_reason FROM sessions p WHERE p.id = s.parent_session_id) AS parent_end_reason,
  (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id) AS parent_exists,
  (SELECT count(*) FROM ${CHILDREN} WHERE c.parent_session_id = s.id AND ${isDelegateSql('c')}) AS child_count,
  CASE WHEN s.title IS NULL THEN (${previewSql('s.id')}) END AS preview_raw`

// Upstream's first user message: by time, then id — which the (session_id, timestamp) index every schema
// version has answers in order (ORDER BY id alone sorts all of a session's messages on a v21 home).
function previewSql(idExpr: string): string {
  return `SELECT substr(m.content, 1, 600) FROM messages m WHERE m.session_id = ${idExpr} AND m.role = 'user'
    AND m.content IS NOT NULL ORDER BY m.timestamp, m.id LIMIT 1`
}

const CHILD_COUNTS = `SELECT c.parent_session_id AS id, count(*) AS n FROM ${CHILDREN}
  WHERE c.parent_session_id IN (SELECT value FROM json_each(?)) AND ${isDelegateSql('c')} GROUP BY c.parent_session_id`
const PARENTS = 'SELECT p.id, p.end_reason FROM sessions p WHERE p.id IN (SELECT value FROM json_each(?))'
const PREVIEWS = `SELECT j.value AS id, (${previewSql('j.value')}) AS preview FROM json_each(?) j`

/**
 * A page's per-row facts (parent, delegate-child count, first user message of untitled rows) in one statement
 * each for the whole page — never a query per row. Fills the fields SUMMARY_COLS's subqueries would.
 */
export function withPageFacts(db: Database.Database, rows: SummaryRow[]): SummaryRow[] {
  if (rows.length === 0) return rows
  const counts = new Map(
    (
      stmt(db, CHILD_COUNTS)
        .raw()
        .all(JSON.stringify(rows.map((r) => r.id))) as Array<[string, number]>
    ).map(([id, n]) => [id, n])
  )
  const parentIds = [...new Set(rows.map((r) => r.parent_session_id).filter((p): p is string => typeof p === 'string'))]
  const parents = new Map(
    parentIds.length
      ? (stmt(db, PARENTS).raw().all(JSON.stringify(parentIds)) as Array<[string, unknown]>).map(([id, e]) => [id, e])
      : []
  )
  const untitled = rows.filter((r) => r.title === null || r.title === undefined).map((r) => r.id)
  const previews = new Map(
    untitled.length
      ? (stmt(db, PREVIEWS).raw().all(JSON.stringify(untitled)) as Array<[string, unknown]>).map(([id, p]) => [id, p])
      : []
  )
  for (const r of rows) {
    const p = typeof r.parent_session_id === 'string' ? r.parent_session_id : null
    r.parent_exists = p !== null && parents.has(p) ? 1 : null
    r.parent_end_reason = p !== null ? (parents.get(p) ?? null) : null
    r.child_count = counts.get(r.id) ?? 0
    r.preview_raw = previews.get(r.id) ?? null
  }
  return rows
}

export type SummaryRow = Record<string, unknown> & LineageRow

function trimPreview(text: unknown): string | null {
  if (typeof text !== 'string') return null
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat || null
}

export function previewOf(db: Database.Database, sessionId: string): string | null {
  return trimPreview(stmt(db, previewSql('?')).pluck().get(sessionId))
}

export function toSummary(db: Database.Database, profile: string, r: SummaryRow): SessionSummary {
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
    lastActiveAt: numOrNull(r.last_activity_at) ?? num(r.started_at),
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
