/**
 * Shapes the delegation subsystem works with. `DelegationDb` is the structural subset of the store's
 * `SessionStore` we need, so the real store satisfies it and tests can pass the store itself.
 */
import type { SessionStore } from '../store'

/**
 * A profile's state.db. The delegation tables are reached through the store's typed repositories
 * (`store.delegationRepo()`, `store.costRepo()`); `write()` is BEGIN IMMEDIATE with busy retry off the event loop, and its
 * callback stays synchronous, must be idempotent, and gets the `WriteTx` that repository writes take.
 */
export type DelegationDb = SessionStore
/** The same store, named for follow-up, delivery and the cost read models. */
export type DelegationStore = SessionStore

/** One child as recorded in `children_json` (upstream keys). */
export interface ChildManifestEntry {
  subagent_id?: string | null
  session_id?: string | null
  model?: string | null
  goal?: string | null
}

/** One addressable retained child (§2.4 list entry, camelCase). */
export interface RetainedChild {
  delegationId: string
  parentSessionId: string | null
  ownerProfile: string
  state: string
  retainedAt: number | null
  completedAt: number | null
  childId: string
  childSessionId: string
  model: string | null
  goal: string | null
}

export interface RetentionLimits {
  maxRetained: number
  ttlHours: number
}

/** Subset of the completion event we persist (upstream keys; extra keys are kept as-is). */
export interface CompletionEvent {
  delegation_id: string
  status: string
  [key: string]: unknown
}

/** `get_durable_delegation` shape, camelCase. */
export interface DurableDelegation {
  delegationId: string
  originSession: string
  state: string
  dispatchedAt: number
  completedAt: number | null
  result: unknown
  deliveryState: string
  deliveryAttempts: number
  originSessionId: string
}

/** The row as inserted at dispatch. */
export interface DispatchRecord {
  delegationId: string
  originSession?: string
  originUiSessionId?: string
  originSessionId?: string
  parentSessionId: string | null
  dispatchedAt?: number
  task?: Record<string, unknown>
  ownerPid?: number
  ownerStartedAt?: number | null
  /**
   * Caduceus's children manifest, written in the dispatch's own transaction: a row of Caduceus's is never seen
   * without one (a row without a manifest is another dispatcher's, upstream's: foreign.ts).
   */
  children?: ChildManifestEntry[]
}

/** One child's outcome as reported back to the model (upstream keys; `_child_*` are stripped by finalize). */
export interface ChildResult {
  task_index: number
  status: string
  summary: string | null
  error?: string | null
  api_calls: number
  duration_seconds: number
  model?: string | null
  exit_reason?: string | null
  tokens?: { input: number; output: number }
  child_session_id?: string
  subagent_id?: string
  _child_role?: string
  /** null = unpriced. */
  _child_cost_usd?: number | null
}

/** Memory hook the parent may carry (hermes-spec §4.1 `on_delegation`). */
export interface DelegationMemoryHook {
  onDelegation(task: string, result: string, opts: { childSessionId: string }): void
}

/**
 * The calling agent as delegation sees it: identity, spawn depth, the in-memory cost rollup (§1.9) and an
 * optional memory manager. The Agent implements it (or the host adapts it).
 */
export interface DelegationParent {
  sessionId: string | null
  currentTurnId?: string | null
  /** 0 for a top-level agent; children run at parent depth + 1. */
  depth: number
  /** Set when the parent is itself a subagent. */
  subagentId?: string | null
  sessionEstimatedCostUsd: number
  sessionCostSource: string
  sessionCostStatus: string
  memory?: DelegationMemoryHook | null
}
