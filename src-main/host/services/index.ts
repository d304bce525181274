// host/services/: the parts of the service graph — stores and watchers, the agent runtime (gateway, delegation,
// memory activity), the channels service, and session export.
export { createStoreServices, type Services } from './services'
export { wireRuntime, type Runtime } from './runtime'
export type { SecretCipher } from './safe-storage-vault'
export { apiServerGuards, createChannelsService, type ChannelsService } from './channels-service'
export { apiConversations } from './api-conversations'
export { exportChunks, exportFilename, exportFormat, exportMime } from './session-export'
