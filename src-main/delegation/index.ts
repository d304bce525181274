/**
 * delegation/ — `delegate_task` (spawn inline or in the background, follow-up), the durable
 * async-delegation registry with retained children (hermes-spec §2), the child-usage ledger, and the
 * read models behind `subagents.*` and `costs.*`. All durable state lives on the profile's own state.db.
 */
export { createDelegationRegistry, newClaimToken, ABANDONED_ERROR, STALE_CLAIM_SECONDS, MAX_DELIVERY_ATTEMPTS, scopeProfile } from './registry'
export type { DelegationRegistry, RegistryOptions } from './registry'
export { checkFollowUpAuthority, FOLLOW_UP_LINEAGE_ERROR, FOLLOW_UP_SELF_ERROR, followUpProfileError, type AuthorityDeps } from './authority'
export { recordChildUsageAttribution, loadChildUsageAttributions, loadChildUsageTotals } from './ledger'
export type { ChildUsage, ChildUsageAttribution, ChildUsageTotals } from './ledger'
export { finalizeChildResults, type FinishedChild } from './finalize'
export {
  createDelegateTool, delegateTask, delegateToolDescription, DELEGATE_TASK_PARAMETERS, NO_PARENT_ERROR, SPAWN_PAUSED_ERROR, STATELESS_NOTE,
  depthLimitError, capacityError, type DelegateToolOptions
} from './delegate-tool'
export { followUpRequest } from './ui-follow-up'
export { markSubagent, parentStateOf, parentFromToolContext } from './parents'
export { FOLLOW_UP_RECEIPT, FOLLOW_UP_NOTE, FOLLOW_UP_NEEDS_GOAL, followUpNotFound } from './follow-up'
export { BackgroundPool, type DelegateDeps, type DelegationCompletion } from './deps'
export { createDelegateDeps, sharedBackgroundPool, type DelegationServiceOptions } from './service'
export { deliverCompletion, restoreUndeliveredCompletions, completionNotice, COMPLETION_DISPLAY_KIND } from './completion'
export { LiveSubagentRegistry, liveSubagents, type LiveSubagent, type LiveSubagentInfo, type SteerableAgent } from './live-registry'
export { LEAF_DENIED_TOOLS, type ChildFactory, type ChildSpec, type ChildAgentHandle, type ChildRunOutcome } from './children'
export { childHandleFromAgent, type TurnRunnerLike } from './agent-child'
export { sessionCost, costSummary, type ProfileStore } from './costs'
export { readPriceOverrides, writePriceOverrides } from './price-overrides'
export { listSubagents, estimateFollowUp } from './subagents'
export { loadDelegationConfig, retentionLimits, DELEGATION_DEFAULTS, type DelegationConfig } from './config'
export type {
  DelegationDb, DelegationStore, DelegationParent, DelegationMemoryHook, ChildResult, ChildManifestEntry, RetainedChild, RetentionLimits,
  CompletionEvent, DurableDelegation, DispatchRecord
} from './types'
