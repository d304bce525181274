/**
 * Durable delegation rows (hermes-spec §2.3): dispatch, completion, pruning, lookup. All on the profile's
 * own state.db; the table itself is created by the store's `openStateDb`.
 */
import type { CompletionEvent, DispatchRecord, DurableDelegation } from '../types'
import { parseJson, toJson, type RegistryCtx } from './context'
import { ownStartTime } from './process-info'
import { retainCompletedDelegation, writeChildren } from './retained'

export const DURABLE_RETENTION_SECONDS = 7 * 24 * 3600
export const MAX_RETAINED_COMPLETED = 50
export const MAX_DURABLE_PENDING = 1000

export async function persistDispatch(ctx: RegistryCtx, rec: DispatchRecord): Promise<void> {
  const now = ctx.now()
  await ctx.write((tx) => {
    ctx.repo.insertDispatch(tx, {
      delegationId: rec.delegationId,
      originSession: rec.originSession ?? '',
      originUiSessionId: rec.originUiSessionId ?? '',
      parentSessionId: rec.parentSessionId ?? null,
      dispatchedAt: rec.dispatchedAt ?? now,
      now,
      ownerPid: rec.ownerPid ?? process.pid,
      ownerStartedAt: rec.ownerStartedAt === undefined ? ownStartTime() : rec.ownerStartedAt,
      taskJson: toJson(rec.task ?? null),
      originSessionId: rec.originSessionId ?? ''
    })
    if (rec.children) writeChildren(ctx, tx, rec.delegationId, rec.children)
  })
  await pruneDurableRecords(ctx)
}

/** Record the terminal outcome; only `completed` units become retained (follow-up addressable). */
export async function persistCompletion(
  ctx: RegistryCtx,
  event: CompletionEvent,
  result: Record<string, unknown> | null
): Promise<void> {
  const id = typeof event?.delegation_id === 'string' ? event.delegation_id.trim() : ''
  if (!id) return
  const status = typeof event.status === 'string' && event.status ? event.status : 'unknown'
  const now = ctx.now()
  const completedAt = typeof event.completed_at === 'number' ? event.completed_at : now
  await ctx.write((tx) => {
    ctx.repo.recordCompletion(tx, id, status, completedAt, toJson(event), toJson(result), now)
  })
  if (status === 'completed')
    await retainCompletedDelegation(ctx, id, (result?.usage as Record<string, unknown> | undefined) ?? null)
  await pruneDurableRecords(ctx)
}

/** Upstream `_prune_durable_records`: age out delivered rows, cap terminal and pending-terminal rows. */
export async function pruneDurableRecords(ctx: RegistryCtx): Promise<number> {
  const now = ctx.now()
  return ctx.write((tx) => {
    let removed = ctx.repo.deleteDeliveredBefore(tx, now - DURABLE_RETENTION_SECONDS)
    const terminal = ctx.repo.countTerminal()
    // Delivered/dropped first, oldest first: a result nobody has seen yet is the last thing to go.
    if (terminal > MAX_RETAINED_COMPLETED)
      removed += ctx.repo.deleteOldestSettledTerminal(tx, terminal - MAX_RETAINED_COMPLETED)
    const pending = ctx.repo.countPendingTerminal()
    if (pending > MAX_DURABLE_PENDING)
      removed += ctx.repo.deleteOldestPendingTerminal(tx, pending - MAX_DURABLE_PENDING)
    return removed
  })
}

export function getDurableDelegation(ctx: RegistryCtx, delegationId: unknown): DurableDelegation | null {
  if (typeof delegationId !== 'string' || !delegationId.trim()) return null
  const row = ctx.repo.getDurable(delegationId.trim())
  if (!row) return null
  return {
    delegationId: row.delegationId,
    originSession: row.originSession,
    state: row.state,
    dispatchedAt: row.dispatchedAt,
    completedAt: row.completedAt,
    result: parseJson(row.resultJson, null),
    deliveryState: row.deliveryState,
    deliveryAttempts: row.deliveryAttempts,
    originSessionId: row.originSessionId
  }
}
