/**
 * tools/ — the `terminal` and `process` tools and the per-host background ProcessRegistry, with the
 * async-delivery notify gate (seed 003). Registered only when a profile sets `terminal.enabled: true`.
 */
export { ProcessRegistry, newProcessId, BACKGROUND_OUTPUT_CHARS, type ProcessRegistryOptions } from './process-registry'
export type { PendingWatcher, ProcessCompletion, ProcessSnapshot, ProcessStatus, StartProcessInput } from './process-types'
export { createTerminalTool, unsupportedNote, type TerminalToolDeps } from './terminal'
export { createProcessTool } from './process-tool'
export { terminalSettings, type TerminalSettings } from './config'
export { saveProcessCompletion, processCompletionNotice, PROCESS_COMPLETE_DISPLAY_KIND, type CompletionStore } from './completion'
export { minimalEnv } from './spawn-shell'
export { runForeground, type ForegroundResult } from './foreground'
