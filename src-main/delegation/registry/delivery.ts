/**
 * At-least-once delivery of completion events into the origin session. A consumer claims a row, delivers,
 * then completes (or releases on failure). A claim older than 300 s is presumed dead and may be stolen;
 * after 8 claims the row is dropped (its result stays queryable).
 */
import { randomUUID } from 'node:crypto'
import type { CompletionEvent } from '../types'
import { parseJson, type RegistryCtx } from './context'
import { readRetrying } from '../../store'

export const STALE_CLAIM_SECONDS = 300
const MAX_DELIVERY_ATTEMPTS = 8

export function newClaimToken(consumer: string): string {
  return `${consumer}:${process.pid}:${randomUUID().replace(/-/g, '')}`
}

export async function claimCompletionDelivery(ctx: RegistryCtx, delegationId: string, claim: string): Promise<boolean> {
  const exists = await readRetrying(() => ctx.repo.exists(delegationId)) // a foreign commit is waited out
  // Unknown id: a legacy/in-memory event with no durable row; nothing to guard.
  if (!exists) return true
  const now = ctx.now()
  return ctx.write((tx) => ctx.repo.claimDelivery(tx, delegationId, claim, now, now - STALE_CLAIM_SECONDS))
}

/** Give a claim back after a failed delivery; the 8th failure drops the row for good. Returns the new state. */
export async function releaseCompletionDelivery(
  ctx: RegistryCtx,
  delegationId: string,
  claim: string
): Promise<'pending' | 'dropped' | null> {
  const now = ctx.now()
  const state = await ctx.write((tx) => {
    const row = ctx.repo.deliveryClaim(delegationId)
    if (!row || row.deliveryClaim !== claim) return null
    if (row.deliveryAttempts >= MAX_DELIVERY_ATTEMPTS) {
      ctx.repo.markDropped(tx, delegationId, now)
      return 'dropped'
    }
    ctx.repo.releaseClaim(tx, delegationId, now)
    return 'pending'
  })
  // once, after the commit: the store re-runs the callback when it retries a busy COMMIT
  if (state === 'dropped')
    ctx.log(
      'warn',
      `Async delegation ${delegationId} exhausted its ${MAX_DELIVERY_ATTEMPTS} delivery attempts; marking terminally dropped (result remains queryable).`
    )
  return state
}

export async function completeCompletionDelivery(
  ctx: RegistryCtx,
  delegationId: string,
  claim: string
): Promise<boolean> {
  return await setDelivered(ctx, delegationId, claim)
}

/** Unclaimed variant: mark delivered if still pending (e.g. delivered through another path). */
export async function markCompletionDelivered(ctx: RegistryCtx, delegationId: string): Promise<boolean> {
  return await setDelivered(ctx, delegationId, null)
}

/** pending → delivered, guarded by the claim when one is given. */
async function setDelivered(ctx: RegistryCtx, delegationId: string, claim: string | null): Promise<boolean> {
  const now = ctx.now()
  return ctx.write((tx) => ctx.repo.setDelivered(tx, delegationId, claim, now))
}

export async function dropCompletionDelivery(ctx: RegistryCtx, delegationId: string, claim?: string): Promise<boolean> {
  const now = ctx.now()
  return ctx.write((tx) => ctx.repo.dropPending(tx, delegationId, claim, now))
}

/** Terminal rows still waiting for delivery, oldest completion first (upstream restore order). */
export function listUndeliveredCompletions(ctx: RegistryCtx): Array<CompletionEvent & { restored: true }> {
  return ctx.repo.listUndelivered().map((r) => {
    const ev = parseJson<Record<string, unknown>>(r.eventJson, {})
    const safe = ev && typeof ev === 'object' && !Array.isArray(ev) ? ev : {}
    return {
      ...safe,
      delegation_id: r.delegationId,
      status: typeof safe.status === 'string' ? safe.status : 'unknown',
      restored: true as const
    }
  })
}
