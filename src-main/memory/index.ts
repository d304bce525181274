/**
 * Memory subsystem: providers, the manager, the caller-scope guard (seed 000), the built-in MEMORY.md /
 * USER.md store and the per-profile activity log.
 */
export {
  MemoryProvider, BUILTIN_PROVIDER_NAME, PRE_COMPRESS_CHECKPOINT_API_VERSION, INDICATOR_GLYPH, type RecallStatus,
  type MaybePromise, type MemoryToolSchema, type InitializeOptions, type ToolCallKwargs, type ChatMessage,
  type PrefetchOptions, type SyncTurnOptions, type TurnStartOptions, type SessionSwitchOptions, type PreCompressOptions,
  type DelegationOptions, type MemoryWriteAction, type MemoryWriteTarget
} from './provider'
export { MemoryManager, type MemoryManagerOptions, type ToolCallOptions, type ShutdownReport } from './manager'
export { DEFAULT_CORE_TOOL_NAMES, PREFETCH_TIMEOUT_MS, DRAIN_TIMEOUT_MS, managerHooks } from './manager-support'
export {
  checkCaller, claimInstance, releaseInstance, resolveCallerHome, bindOwner, callerScopeHooks, callerScopeLogger,
  MemoryCallRefusedError, REFUSAL_CODE, REFUSAL_MESSAGE, INSTANCE_SHARED_CODE, INSTANCE_UNTRACKABLE_CODE,
  type CallerVerdict, type RefusalReason, type ScopeOwner
} from './caller-scope'
export {
  addMemoryLogSink, memoryLogger, CALLER_SCOPE_LOGGER, MANAGER_LOGGER,
  type MemoryLogRecord, type MemoryLogSink, type MemoryLogLevel, type MemoryLogger
} from './log'
export { memoryToolDefinitions, type MemoryToolDefinition, type MemoryToolContext } from './tools'
export { BuiltinMemoryProvider, type BuiltinMemoryOptions } from './builtin'
export {
  readEntries, editEntry, writeEntries, parseEntries, serializeEntries, memoryFile, ENTRY_DELIMITER, MEMORY_TARGETS,
  type EntryEdit, type MemoryTarget
} from './builtin-store'
export { runMemoryTool, MEMORY_TOOL_NAME, MEMORY_TOOL_SCHEMA, DEFAULT_MEMORY_LIMITS, type MemoryLimits } from './builtin-tool'
export { MemoryActivityLog, ACTIVITY_RETENTION, type ActivityLogOptions, type MemoryEventListener } from './activity'
export { MemoryActivityHub } from './activity-hub'
export type { MemoryActivityInput, MemoryActivitySink } from './activity-types'
export {
  buildMemoryManagerForAgent, type AgentMemory, type BuildAgentMemoryOptions, type MemoryConfig, type StartupNotice,
  type LoadMemoryProvider
} from './agent-build'
export { redactSecrets } from './redact'
/** Provider loading: Caduceus's own providers, JS plugins, upstream names it does not support. */
export * as memoryProviders from './providers'
