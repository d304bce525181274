/**
 * host/ — builds ONE service graph per app (profiles → stores → gateway → agents, memory, delegation) and
 * the dispatcher every transport calls. Electron (src-main/index.ts) and `caduceus serve` differ only in
 * the transport they put in front of it. One folder per job: compose/ (composition root), services/,
 * dispatch/, handlers/, transport/, cli/, electron/ (window policy), log/, memory-providers/.
 */
export { createHost, type Host, type HostOptions } from './compose'
export { installLastResort, redact } from './log'
export { parseArgs } from './cli'
