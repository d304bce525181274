/**
 * Memory subsystem: providers, the manager, the caller-scope guard (seed 000), the built-in MEMORY.md /
 * USER.md store and the per-profile activity log.
 */
export { addMemoryLogSink } from './log'
export { memoryToolDefinitions } from './tools'
export { readEntries, editEntry } from './builtin-store'
export { MemoryActivityHub } from './activity-hub'
export {
  buildMemoryManagerForAgent,
  type AgentMemory,
  type StartupNotice,
  type LoadMemoryProvider
} from './agent-build'
/** Provider loading: Caduceus's own providers, JS plugins, upstream names it does not support. */
import * as memoryProviders from './providers'
/** Provider loading, identity and plugin discovery, as one namespace (the host's memory-provider service). */
export { memoryProviders }
