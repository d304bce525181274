/**
 * Durable delegation registry bound to one profile's state.db. Reads are synchronous SQL on the store's handle;
 * writes are async (the store's off-loop write queue); nothing is cached in memory, so a restart (or another process) sees the same registry.
 */
import type {
  ChildManifestEntry,
  CompletionEvent,
  DelegationDb,
  DispatchRecord,
  DurableDelegation,
  RetainedChild
} from '../types'
import { createRegistryCtx, type RegistryCtx, type RegistryOptions } from './context'
import {
  claimCompletionDelivery,
  completeCompletionDelivery,
  dropCompletionDelivery,
  listUndeliveredCompletions,
  markCompletionDelivered,
  releaseCompletionDelivery
} from './delivery'
import { getDurableDelegation, persistCompletion, persistDispatch, pruneDurableRecords } from './durable'
import { recoverAbandonedDelegations } from './recovery'
import {
  findRetainedChild,
  listRetainedChildren,
  pruneRetainedChildren,
  recordDispatchedChildren,
  rehydrateRetainedChildren,
  retainCompletedDelegation,
  tombstoneRetainedChild
} from './retained'

export interface DelegationRegistry {
  readonly ctx: RegistryCtx
  persistDispatch(rec: DispatchRecord): Promise<void>
  recordDispatchedChildren(delegationId: string, children: ChildManifestEntry[]): Promise<void>
  persistCompletion(event: CompletionEvent, result: Record<string, unknown> | null): Promise<void>
  retainCompletedDelegation(delegationId: string, usage?: Record<string, unknown> | null): Promise<void>
  listRetainedChildren(): RetainedChild[]
  findRetainedChild(id: unknown): RetainedChild | null
  tombstoneRetainedChild(id: unknown): Promise<boolean>
  pruneRetainedChildren(opts?: { maxRetained?: number; ttlHours?: number }): Promise<number>
  rehydrateRetainedChildren(): Promise<number>
  recoverAbandonedDelegations(): Promise<number>
  pruneDurableRecords(): Promise<number>
  getDurableDelegation(id: unknown): DurableDelegation | null
  claimCompletionDelivery(delegationId: string, claim: string): Promise<boolean>
  releaseCompletionDelivery(delegationId: string, claim: string): Promise<'pending' | 'dropped' | null>
  completeCompletionDelivery(delegationId: string, claim: string): Promise<boolean>
  markCompletionDelivered(delegationId: string): Promise<boolean>
  dropCompletionDelivery(delegationId: string, claim?: string): Promise<boolean>
  listUndeliveredCompletions(): ReturnType<typeof listUndeliveredCompletions>
}

export function createDelegationRegistry(store: DelegationDb, opts: RegistryOptions = {}): DelegationRegistry {
  const ctx = createRegistryCtx(store, opts)
  return {
    ctx,
    persistDispatch: (rec) => persistDispatch(ctx, rec),
    recordDispatchedChildren: (id, children) => recordDispatchedChildren(ctx, id, children),
    persistCompletion: (event, result) => persistCompletion(ctx, event, result),
    retainCompletedDelegation: (id, usage) => retainCompletedDelegation(ctx, id, usage ?? null),
    listRetainedChildren: () => listRetainedChildren(ctx),
    findRetainedChild: (id) => findRetainedChild(ctx, id),
    tombstoneRetainedChild: (id) => tombstoneRetainedChild(ctx, id),
    pruneRetainedChildren: (o) => pruneRetainedChildren(ctx, o),
    rehydrateRetainedChildren: () => rehydrateRetainedChildren(ctx),
    recoverAbandonedDelegations: () => recoverAbandonedDelegations(ctx),
    pruneDurableRecords: () => pruneDurableRecords(ctx),
    getDurableDelegation: (id) => getDurableDelegation(ctx, id),
    claimCompletionDelivery: (id, claim) => claimCompletionDelivery(ctx, id, claim),
    releaseCompletionDelivery: (id, claim) => releaseCompletionDelivery(ctx, id, claim),
    completeCompletionDelivery: (id, claim) => completeCompletionDelivery(ctx, id, claim),
    markCompletionDelivered: (id) => markCompletionDelivered(ctx, id),
    dropCompletionDelivery: (id, claim) => dropCompletionDelivery(ctx, id, claim),
    listUndeliveredCompletions: () => listUndeliveredCompletions(ctx)
  }
}

export { newClaimToken, STALE_CLAIM_SECONDS } from './delivery'
export { DURABLE_RETENTION_SECONDS, MAX_RETAINED_COMPLETED, MAX_DURABLE_PENDING } from './durable'
export { scopeProfile, type RegistryOptions, type RegistryCtx } from './context'
export { isPidAlive, processStartTime, ownStartTime } from './process-info'
