/**
 * delegation/ — `delegate_task` (spawn inline or in the background, follow-up), the durable
 * async-delegation registry with retained children (hermes-spec §2), the child-usage ledger, and the
 * read models behind `subagents.*` and `costs.*`. All durable state lives on the profile's own state.db.
 */
export { createDelegateTool } from './delegate-tool'
export { followUpRequest } from './ui-follow-up'
export { markSubagent } from './parents'
export { type DelegateDeps } from './deps'
export { createDelegateDeps } from './service'
export { restoreUndeliveredCompletions } from './completion'
export { stopBackgroundDelegations } from './stop-background'
export { LEAF_DENIED_TOOLS } from './children'
export { childHandleFromAgent } from './agent-child'
export { listSubagents, estimateFollowUp } from './subagents'
export { ownerIsGone, ownStartTime } from './registry/process-info'
