/**
 * tools/ — the `terminal` and `process` tools and the per-host background ProcessRegistry, with the
 * async-delivery notify gate (seed 003). Registered only when a profile sets `terminal.enabled: true`.
 */
export { ProcessRegistry } from './process-registry'
export { createTerminalTool } from './terminal'
export { createProcessTool } from './process-tool'
export { terminalSettings } from './config'
export { processCompletionMessage } from './completion'
export type { ProcessCompletion } from './process-types'
export { OutputBuffer } from './output-buffer'
export { killTree, waitForExit } from './spawn-shell'
