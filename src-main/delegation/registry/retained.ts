/**
 * Retained-children registry (hermes-spec §2.4): completed delegations stay addressable for follow-up
 * until tombstoned by hand or pruned by TTL/cap. Tombstoning only removes addressability; rows and
 * transcripts are never deleted here.
 */
import type { SessionStore } from '../../store'
import type { ChildManifestEntry, RetainedChild } from '../types'
import { parseJson, toJson, type RegistryCtx } from './context'

/** The write handle `ctx.write` passes its callback. */
type WriteTx = Parameters<Parameters<RegistryCtx['write']>[0]>[0]

export async function recordDispatchedChildren(
  ctx: RegistryCtx,
  delegationId: string,
  children: ChildManifestEntry[]
): Promise<void> {
  if (typeof delegationId !== 'string' || !delegationId.trim()) return
  await ctx.write((tx) => writeChildren(ctx, tx, delegationId.trim(), children))
}

/** The manifest's columns on the row, inside a write the caller holds (the dispatch writes it with the row). */
export function writeChildren(ctx: RegistryCtx, tx: WriteTx, delegationId: string, children: ChildManifestEntry[]) {
  const list = Array.isArray(children) ? children.filter((c) => c && typeof c === 'object') : []
  const single =
    list.length === 1 && typeof list[0].session_id === 'string' && list[0].session_id ? list[0].session_id : null
  ctx.repo.setChildren(tx, delegationId, JSON.stringify(list), single, ctx.currentProfile(), ctx.now())
}

/** Mark a delegation retained (only if never tombstoned), then prune with the configured limits. */
export async function retainCompletedDelegation(
  ctx: RegistryCtx,
  delegationId: string,
  usage: Record<string, unknown> | null = null
): Promise<void> {
  if (typeof delegationId !== 'string' || !delegationId.trim()) return
  const now = ctx.now()
  await ctx.write((tx) => {
    ctx.repo.markRetained(tx, delegationId.trim(), usage ? toJson(usage) : null, now)
  })
  await pruneRetainedChildren(ctx)
}

/**
 * Tombstone rows whose child sessions are gone (deleted by another program), expired rows (TTL), then everything
 * beyond the newest `maxRetained`. Explicit arguments are
 * floored at 1 / 0 h; configured values at 1 / 1 h.
 */
export async function pruneRetainedChildren(
  ctx: RegistryCtx,
  opts: { maxRetained?: number; ttlHours?: number } = {}
): Promise<number> {
  const cfg = opts.maxRetained === undefined || opts.ttlHours === undefined ? ctx.limits() : null
  const maxRetained =
    opts.maxRetained !== undefined ? Math.max(1, Math.trunc(opts.maxRetained)) : Math.max(1, cfg!.maxRetained)
  const ttlHours = opts.ttlHours !== undefined ? Math.max(0, opts.ttlHours) : Math.max(1, cfg!.ttlHours)
  const now = ctx.now()
  // Nothing retained: no write at all (start-up must not take the write lock, nor create a missing state.db).
  if (!ctx.repo.hasLiveRetained()) return 0
  return ctx.write((tx) => {
    const gone = ctx.repo.tombstoneRetainedWithoutSession(tx, now)
    const expired = ctx.repo.tombstoneRetainedBefore(tx, now - ttlHours * 3600, now)
    const overCap = ctx.repo.tombstoneRetainedBeyond(tx, maxRetained, now)
    return gone + expired + overCap
  })
}

/** A retained delegation as the store's repository returns it (camelCase record). */
type RetainedRecord = ReturnType<ReturnType<SessionStore['delegationRepo']>['listRetained']>[number]

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** Expand one row into its children (upstream list entry keys, camelCase). */
export function expandChildren(row: RetainedRecord): RetainedChild[] {
  let children = parseJson<unknown>(row.childrenJson, [])
  if (!Array.isArray(children)) children = []
  let list = (children as unknown[]).filter((c): c is ChildManifestEntry => !!c && typeof c === 'object')
  if (list.length === 0 && row.childSessionId) list = [{ session_id: row.childSessionId }]
  return list.map((c) => ({
    delegationId: row.delegationId,
    parentSessionId: row.parentSessionId,
    ownerProfile: row.ownerProfile ?? '',
    state: row.state,
    retainedAt: row.retainedAt,
    completedAt: row.completedAt,
    childId: str(c.subagent_id) || str(c.session_id) || '',
    childSessionId: str(c.session_id),
    model: typeof c.model === 'string' ? c.model : null,
    goal: typeof c.goal === 'string' ? c.goal : null
  }))
}

export function listRetainedChildren(ctx: RegistryCtx): RetainedChild[] {
  // A read must not wait on the write lock: the prune runs at once when the DB is free (same tick, so its
  // result is visible below) and otherwise later off the event loop; until then expired rows still list.
  pruneRetainedChildren(ctx).catch((err: Error) => ctx.log('warn', `pruning retained children failed: ${err.message}`))
  return ctx.repo.listRetained().flatMap(expandChildren)
}

export function findRetainedChild(ctx: RegistryCtx, id: unknown): RetainedChild | null {
  if (typeof id !== 'string') return null
  const key = id.trim()
  if (!key) return null
  return (
    listRetainedChildren(ctx).find((e) => e.childId === key || e.childSessionId === key || e.delegationId === key) ??
    null
  )
}

/** De-register a retained child from follow-up messaging. True only the first time. */
export async function tombstoneRetainedChild(ctx: RegistryCtx, id: unknown): Promise<boolean> {
  const entry = findRetainedChild(ctx, id)
  if (!entry) return false
  const now = ctx.now()
  return ctx.write((tx) => ctx.repo.tombstoneRetained(tx, entry.delegationId, now))
}

export async function rehydrateRetainedChildren(ctx: RegistryCtx): Promise<number> {
  await pruneRetainedChildren(ctx)
  const n = listRetainedChildren(ctx).length
  if (n > 0) ctx.log('info', `Rehydrated ${n} retained subagent record(s) after restart`)
  return n
}
