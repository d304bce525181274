/**
 * Memory subsystem: providers, the manager, the caller-scope guard (seed 000), the built-in MEMORY.md /
 * USER.md store and the per-profile activity log.
 */
export { memoryToolDefinitions } from './tools'
export { buildMemoryContextBlock } from './context-fence'
export { editEntry, memoryFileProblems, memoryUsage, removeMemoryFile } from './builtin-store'
export { memoryEntriesView } from './entries-view'
export { MemoryActivityHub } from './activity-hub'
export { listPendingMemoryWrites, decidePendingMemoryWrite } from './pending-writes'
export {
  buildMemoryManagerForAgent,
  type AgentMemory,
  type StartupNotice,
  type LoadMemoryProvider
} from './agent-build'
/** The providers a root offers its profiles: loading, identity (seed 001), plugin folders, the picker's choices. */
export { ProviderCatalog } from './providers/catalog'
