/**
 * Durable delegation rows (hermes-spec §2.3): dispatch, completion, pruning, lookup. All on the profile's
 * own state.db; the table itself is created by the store's `openStateDb`.
 */
import type { CompletionEvent, DispatchRecord, DurableDelegation } from '../types'
import { parseJson, toJson, type RegistryCtx } from './context'
import { ownStartTime } from './process-info'
import { retainCompletedDelegation } from './retained'

export const DURABLE_RETENTION_SECONDS = 7 * 24 * 3600
export const MAX_RETAINED_COMPLETED = 50
export const MAX_DURABLE_PENDING = 1000
/** States that are not terminal; everything else is. */
const ACTIVE_STATES = "('running', 'finalizing')"
/** Live retained rows are never deleted by housekeeping: they are the follow-up registry. */
const NOT_LIVE_RETAINED = '(COALESCE(retained, 0) = 0 OR tombstoned_at IS NOT NULL)'

export async function persistDispatch(ctx: RegistryCtx, rec: DispatchRecord): Promise<void> {
  const now = ctx.now()
  await ctx.write(() => {
    ctx.db
      .prepare(
        `INSERT OR REPLACE INTO async_delegations
          (delegation_id, origin_session, origin_ui_session_id, parent_session_id, state, dispatched_at, updated_at,
           delivery_state, delivery_attempts, owner_pid, owner_started_at, task_json, origin_session_id)
         VALUES (?, ?, ?, ?, 'running', ?, ?, 'pending', 0, ?, ?, ?, ?)`
      )
      .run(
        rec.delegationId, rec.originSession ?? '', rec.originUiSessionId ?? '', rec.parentSessionId ?? null,
        rec.dispatchedAt ?? now, now, rec.ownerPid ?? process.pid,
        rec.ownerStartedAt === undefined ? ownStartTime() : rec.ownerStartedAt, toJson(rec.task ?? null),
        rec.originSessionId ?? ''
      )
  })
  await pruneDurableRecords(ctx)
}

/** Record the terminal outcome; only `completed` units become retained (follow-up addressable). */
export async function persistCompletion(ctx: RegistryCtx, event: CompletionEvent, result: Record<string, unknown> | null): Promise<void> {
  const id = typeof event?.delegation_id === 'string' ? event.delegation_id.trim() : ''
  if (!id) return
  const status = typeof event.status === 'string' && event.status ? event.status : 'unknown'
  const now = ctx.now()
  const completedAt = typeof event.completed_at === 'number' ? event.completed_at : now
  await ctx.write(() => {
    ctx.db
      .prepare(
        `UPDATE async_delegations SET state = ?, completed_at = ?, event_json = ?, result_json = ?,
           delivery_state = 'pending', updated_at = ? WHERE delegation_id = ?`
      )
      .run(status, completedAt, toJson(event), toJson(result), now, id)
  })
  if (status === 'completed') await retainCompletedDelegation(ctx, id, (result?.usage as Record<string, unknown> | undefined) ?? null)
  await pruneDurableRecords(ctx)
}

/** Upstream `_prune_durable_records`: age out delivered rows, cap terminal and pending-terminal rows. */
export async function pruneDurableRecords(ctx: RegistryCtx): Promise<number> {
  const now = ctx.now()
  return ctx.write(() => {
    let removed = ctx.db
      .prepare(`DELETE FROM async_delegations WHERE delivery_state = 'delivered' AND updated_at < ? AND ${NOT_LIVE_RETAINED}`)
      .run(now - DURABLE_RETENTION_SECONDS).changes
    const terminal = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM async_delegations WHERE state NOT IN ${ACTIVE_STATES}`).get() as { n: number }).n
    if (terminal > MAX_RETAINED_COMPLETED) {
      // Delivered/dropped first, oldest first: a result nobody has seen yet is the last thing to go.
      removed += ctx.db
        .prepare(
          `DELETE FROM async_delegations WHERE delegation_id IN (
             SELECT delegation_id FROM async_delegations
             WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state != 'pending' AND ${NOT_LIVE_RETAINED}
             ORDER BY updated_at ASC, delegation_id ASC LIMIT ?)`
        )
        .run(terminal - MAX_RETAINED_COMPLETED).changes
    }
    const pending = (
      ctx.db.prepare(`SELECT COUNT(*) AS n FROM async_delegations WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state = 'pending'`).get() as { n: number }
    ).n
    if (pending > MAX_DURABLE_PENDING) {
      removed += ctx.db
        .prepare(
          `DELETE FROM async_delegations WHERE delegation_id IN (
             SELECT delegation_id FROM async_delegations
             WHERE state NOT IN ${ACTIVE_STATES} AND delivery_state = 'pending' AND ${NOT_LIVE_RETAINED}
             ORDER BY COALESCE(completed_at, updated_at) ASC, delegation_id ASC LIMIT ?)`
        )
        .run(pending - MAX_DURABLE_PENDING).changes
    }
    return removed
  })
}

interface Row {
  delegation_id: string
  origin_session: string
  state: string
  dispatched_at: number
  completed_at: number | null
  result_json: string | null
  delivery_state: string
  delivery_attempts: number
  origin_session_id: string | null
}

export function getDurableDelegation(ctx: RegistryCtx, delegationId: unknown): DurableDelegation | null {
  if (typeof delegationId !== 'string' || !delegationId.trim()) return null
  const row = ctx.db
    .prepare(
      `SELECT delegation_id, origin_session, state, dispatched_at, completed_at, result_json, delivery_state,
              delivery_attempts, origin_session_id FROM async_delegations WHERE delegation_id = ?`
    )
    .get(delegationId.trim()) as Row | undefined
  if (!row) return null
  return {
    delegationId: row.delegation_id,
    originSession: row.origin_session,
    state: row.state,
    dispatchedAt: row.dispatched_at,
    completedAt: row.completed_at,
    result: parseJson(row.result_json, null),
    deliveryState: row.delivery_state,
    deliveryAttempts: row.delivery_attempts,
    originSessionId: row.origin_session_id ?? ''
  }
}
