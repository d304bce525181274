/**
 * The session list: one row per conversation. Compression chains show as their tip (carrying rootId and
 * chainLength); delegate and branch children are hidden unless asked for. Ordered by last activity as upstream
 * defines it (last message time, whoever wrote it; activity-index.ts) and keyset-paginated on (activity DESC,
 * started_at DESC, id DESC), walking the activity index in order, so a page costs ~limit index steps plus
 * a few statements for the whole page — never a query per row, never a scan of messages.
 */
import type Database from 'better-sqlite3'
import { allObjects, stmt } from './stmt-cache'
import type { SessionPage, SessionSummary } from '@shared/contract'
import { isBranchSql, isDelegateSql, supersededSql } from './sql'
import { refreshActivity } from './activity-index'
import { PLAIN_COLS, toSummary, withPageFacts, type SummaryRow } from './read-summary'
import { invalid } from './errors'
import type { SearchFilters } from './search-match'

/** The Sessions page's filters (the same ones a search applies), plus paging. */
export interface ListOptions extends SearchFilters {
  limit?: number
  cursor?: string | null
}

type Key = [number, number, string]

export function encodeCursor(k: Key): string {
  return Buffer.from(JSON.stringify(k), 'utf8').toString('base64url')
}

export function decodeCursor(c: string): Key {
  try {
    const k = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'))
    if (
      Array.isArray(k) &&
      k.length === 3 &&
      Number.isFinite(k[0]) &&
      Number.isFinite(k[1]) &&
      typeof k[2] === 'string'
    )
      return k as Key
  } catch {
    /* fall through */
  }
  throw invalid('invalid cursor', 'cursor')
}

export function listSessionRows(db: Database.Database, profile: string, q: ListOptions = {}): SessionPage {
  const limit = Math.max(1, Math.min(500, Math.floor(q.limit ?? 100)))
  refreshActivity(db)
  const ACTIVITY = 'a.act'
  const where: string[] = ['COALESCE(s.hidden, 0) = 0']
  const args: unknown[] = []
  // An id typed into the filter names one session: a compressed part is listed as itself, not hidden behind its tip
  // (ids reach users from upstream's CLI, logs and the Costs page, which count parts separately).
  if (!q.idPrefix) where.push(`NOT ${supersededSql('s')}`)
  const archived = q.archived ?? 'exclude'
  if (archived === 'exclude') where.push('COALESCE(s.archived, 0) = 0')
  else if (archived === 'only') where.push('s.archived = 1')
  // Unary + keeps the planner on the activity index (walk in order, stop at a page) instead of
  // idx_sessions_source followed by a sort of every matching row.
  if (q.sources?.length) {
    where.push(`+s.source IN (${q.sources.map(() => '?').join(',')})`)
    args.push(...q.sources)
  }
  if (q.from !== undefined) {
    where.push(`${ACTIVITY} >= ?`)
    args.push(q.from)
  }
  if (q.to !== undefined) {
    where.push(`${ACTIVITY} <= ?`)
    args.push(q.to)
  }
  if (q.idPrefix) {
    where.push('substr(s.id, 1, ?) = ?')
    args.push(q.idPrefix.length, q.idPrefix)
  }
  if (!q.includeChildren)
    where.push(`(s.parent_session_id IS NULL OR NOT (${isDelegateSql('s')} OR ${isBranchSql('s')}))`)
  if (q.cursor) {
    // Row-value comparison lets SQLite seek the expression index instead of re-scanning earlier pages.
    where.push(`(${ACTIVITY}, a.started, a.id) < (?, ?, ?)`)
    args.push(...decodeCursor(q.cursor))
  }
  // The page's rows come straight off the ordered walk (the filters read them anyway); their per-row facts
  // are then read for just those rows, one statement each (withPageFacts), never a subquery per candidate.
  const rows = allObjects<SummaryRow & { cad_act: number; cad_started: number }>(
    db,
    `SELECT ${PLAIN_COLS}, a.act AS cad_act, a.started AS cad_started
    FROM temp.cad_activity a CROSS JOIN sessions s ON s.id = a.id
    WHERE ${where.join(' AND ')} ORDER BY a.act DESC, a.started DESC, a.id DESC LIMIT ?`,
    ...args,
    limit + 1
  )
  const more = rows.length > limit
  const page = withPageFacts(db, rows.slice(0, limit))
  const items: SessionSummary[] = []
  for (const r of page) {
    const s = { ...toSummary(db, profile, r), lastActiveAt: Number(r.cad_act) }
    // A chain whose root is itself a delegate/branch child is a child too (rare: compressed subagents).
    if (!q.includeChildren && s.kind === 'continuation' && s.rootId !== s.id && isHiddenRoot(db, s.rootId)) continue
    items.push(s)
  }
  const last = page[page.length - 1]
  return {
    items,
    nextCursor: more && last ? encodeCursor([Number(last.cad_act), Number(last.cad_started), last.id]) : null
  }
}

function isHiddenRoot(db: Database.Database, id: string): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM sessions s WHERE s.id = ? AND s.parent_session_id IS NOT NULL
    AND (${isDelegateSql('s')} OR ${isBranchSql('s')})`
    ).get(id) !== undefined
  )
}
