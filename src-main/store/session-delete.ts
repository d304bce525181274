/**
 * Delete and prune (hermes-channels §4, hermes-spec §1.10 invariant 6). Messages go with their session
 * (the home's own FTS triggers remove the index rows); delegate children (`_delegate_from`) are deleted with
 * their parent; every other child is detached (parent_session_id = NULL), never lost.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import { marker } from './sql'
import { nowSeconds } from './util'

const MAX_DEPTH = 64

function tableExists(db: Database.Database, name: string): boolean {
  return stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
}

/** Deletes one session (in the caller's transaction). Returns false for an unknown id. */
export function deleteSessionRows(
  db: Database.Database,
  id: string,
  depth = 0
): { deleted: boolean; detachedChildren: number; ids: string[] } {
  if (!stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(id)) return { deleted: false, detachedChildren: 0, ids: [] }
  const ids = [id]
  let detached = 0
  const children = stmt(
    db,
    `SELECT c.id, ${marker('c', '_delegate_from')} IS NOT NULL OR c.source IN ('delegate', 'subagent') AS delegate
    FROM sessions c WHERE c.parent_session_id = ? AND c.id <> ?`
  ).all(id, id) as Array<{ id: string; delegate: number }>
  for (const c of children) {
    if (c.delegate && depth < MAX_DEPTH) ids.push(...deleteSessionRows(db, c.id, depth + 1).ids)
    else {
      stmt(db, 'UPDATE sessions SET parent_session_id = NULL WHERE id = ?').run(c.id)
      detached++
      ids.push(c.id)
    }
  }
  stmt(db, 'DELETE FROM messages WHERE session_id = ?').run(id)
  // Per-day usage lives in Caduceus's cad_ stand-in in older homes (read through the shim): it goes too.
  for (const t of [
    'session_model_usage',
    'session_daily_usage',
    'cad_session_model_usage',
    'cad_session_daily_usage'
  ]) {
    if (tableExists(db, t)) stmt(db, `DELETE FROM ${t} WHERE session_id = ?`).run(id)
  }
  stmt(db, 'DELETE FROM sessions WHERE id = ?').run(id)
  return { deleted: true, detachedChildren: detached, ids }
}

/** Ended sessions whose last activity is older than `days`; deleted one by one so children are handled. */
export function pruneRows(db: Database.Database, days: number, now = nowSeconds()): { deleted: number; ids: string[] } {
  const cutoff = now - days * 86400
  const victims = stmt(
    db,
    `SELECT id FROM sessions WHERE ended_at IS NOT NULL
      AND COALESCE(last_activity_at, ended_at, started_at) < ? ORDER BY started_at`
  )
    .pluck()
    .all(cutoff) as string[]
  let deleted = 0
  const ids: string[] = []
  for (const id of victims) {
    const r = deleteSessionRows(db, id)
    if (r.deleted) {
      deleted++
      ids.push(...r.ids)
    }
  }
  return { deleted, ids }
}
