// host/services/: the parts of the service graph — stores and watchers, the agent runtime (gateway, delegation,
// memory activity, vault, follow-up turns) and session export.
export { createStoreServices, type Services } from './services'
export { wireRuntime, type Runtime } from './runtime'
export type { SecretCipher } from './safe-storage-vault'
export { exportChunks, exportFilename, exportFormat, exportMime, redactRecord } from './session-export'
export { traceJsonl } from './export-trace'
export { exportHtml } from './export-html'
