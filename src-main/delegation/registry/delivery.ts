/**
 * At-least-once delivery of completion events into the origin session. A consumer claims a row, delivers,
 * then completes (or releases on failure). A claim older than 300 s is presumed dead and may be stolen;
 * after 8 claims the row is dropped (its result stays queryable).
 */
import { randomUUID } from 'node:crypto'
import type { CompletionEvent } from '../types'
import { parseJson, type RegistryCtx } from './context'

export const STALE_CLAIM_SECONDS = 300
export const MAX_DELIVERY_ATTEMPTS = 8

export function newClaimToken(consumer: string): string {
  return `${consumer}:${process.pid}:${randomUUID().replace(/-/g, '')}`
}

export async function claimCompletionDelivery(ctx: RegistryCtx, delegationId: string, claim: string): Promise<boolean> {
  const exists = ctx.db.prepare('SELECT 1 FROM async_delegations WHERE delegation_id = ?').get(delegationId)
  // Unknown id: a legacy/in-memory event with no durable row; nothing to guard.
  if (!exists) return true
  const now = ctx.now()
  return ctx.write(
    () =>
      ctx.db
        .prepare(
          `UPDATE async_delegations SET delivery_claim = ?, delivery_claimed_at = ?, delivery_attempts = delivery_attempts + 1, updated_at = ?
           WHERE delegation_id = ? AND delivery_state = 'pending' AND (delivery_claim IS NULL OR delivery_claimed_at IS NULL OR delivery_claimed_at < ?)`
        )
        .run(claim, now, now, delegationId, now - STALE_CLAIM_SECONDS).changes === 1
  )
}

/** Give a claim back after a failed delivery; the 8th failure drops the row for good. Returns the new state. */
export async function releaseCompletionDelivery(ctx: RegistryCtx, delegationId: string, claim: string): Promise<'pending' | 'dropped' | null> {
  const now = ctx.now()
  return ctx.write(() => {
    const row = ctx.db.prepare('SELECT delivery_attempts, delivery_claim FROM async_delegations WHERE delegation_id = ?').get(delegationId) as
      | { delivery_attempts: number; delivery_claim: string | null }
      | undefined
    if (!row || row.delivery_claim !== claim) return null
    if (row.delivery_attempts >= MAX_DELIVERY_ATTEMPTS) {
      ctx.db
        .prepare(`UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ?`)
        .run(now, delegationId)
      ctx.log('warn', `Async delegation ${delegationId} exhausted its ${MAX_DELIVERY_ATTEMPTS} delivery attempts; marking terminally dropped (result remains queryable).`)
      return 'dropped'
    }
    ctx.db
      .prepare('UPDATE async_delegations SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ?')
      .run(now, delegationId)
    return 'pending'
  })
}

export async function completeCompletionDelivery(ctx: RegistryCtx, delegationId: string, claim: string): Promise<boolean> {
  return await setDelivered(ctx, delegationId, claim)
}

/** Unclaimed variant: mark delivered if still pending (e.g. delivered through another path). */
export async function markCompletionDelivered(ctx: RegistryCtx, delegationId: string): Promise<boolean> {
  return await setDelivered(ctx, delegationId, null)
}

/** pending → delivered, guarded by the claim when one is given. */
async function setDelivered(ctx: RegistryCtx, delegationId: string, claim: string | null): Promise<boolean> {
  const now = ctx.now()
  const guard = claim === null ? '' : ' AND delivery_claim = ?'
  const args: unknown[] = claim === null ? [now, now, delegationId] : [now, now, delegationId, claim]
  return ctx.write(
    () =>
      ctx.db
        .prepare(
          `UPDATE async_delegations SET delivery_state = 'delivered', delivered_at = ?, delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ?
           WHERE delegation_id = ? AND delivery_state = 'pending'${guard}`
        )
        .run(...args).changes === 1
  )
}

export async function dropCompletionDelivery(ctx: RegistryCtx, delegationId: string, claim?: string): Promise<boolean> {
  const now = ctx.now()
  const guard = claim === undefined ? '' : ' AND delivery_claim = ?'
  const args: unknown[] = [now, delegationId]
  if (claim !== undefined) args.push(claim)
  return ctx.write(
    () =>
      ctx.db
        .prepare(`UPDATE async_delegations SET delivery_state = 'dropped', delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending'${guard}`)
        .run(...args).changes === 1
  )
}

/** Terminal rows still waiting for delivery, oldest completion first (upstream restore order). */
export function listUndeliveredCompletions(ctx: RegistryCtx): Array<CompletionEvent & { restored: true }> {
  const rows = ctx.db
    .prepare(
      `SELECT delegation_id, event_json FROM async_delegations
       WHERE state != 'running' AND delivery_state = 'pending' AND event_json IS NOT NULL
       ORDER BY completed_at ASC, delegation_id ASC`
    )
    .all() as Array<{ delegation_id: string; event_json: string }>
  return rows.map((r) => {
    const ev = parseJson<Record<string, unknown>>(r.event_json, {})
    const safe = ev && typeof ev === 'object' && !Array.isArray(ev) ? ev : {}
    return { ...safe, delegation_id: r.delegation_id, status: typeof safe.status === 'string' ? safe.status : 'unknown', restored: true as const }
  })
}
