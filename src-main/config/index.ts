/**
 * Per-profile configuration: `config.yaml` (typed accessors with upstream defaults), `.env` secrets that
 * never touch process.env, runtime resolution for provider clients, and settings read/write for the UI.
 * API keys never leave the main process and never reach a log (`redact`).
 */
export { loadConfig, configPath, parseConfigText, isPlainObject, type LoadedConfig, type ConfigError, type RawConfig } from './load-config'
export {
  modelSettings, providerLimitSettings, compressionSettings, delegationSettings, memoryProvider, agentSettings, isDemoConfig, section,
  DEFAULT_MAX_ITERATIONS, DEFAULT_COMPRESSION, DEFAULT_DELEGATION,
  type ModelSettings, type CompressionSettings, type ReasoningEffort, type DelegationSettings, type AgentSettings
} from './settings-schema'
export { parseEnv, readEnvFile, updateEnvFile, envPath } from './env-file'
export { EnvFileVault, secretsFor, setDefaultVault, getDefaultVault, type SecretVault } from './vault'
export { resolveRuntime, filterCapabilities, DEFAULT_MODEL, type ResolvedRuntime, type ApiMode } from './runtime'
export { readSettings, writeSettings, type SettingsOptions, type SettingsPatch } from './settings'
export { writeMemoryProvider } from './memory-provider-setting'
export { redact, redactValues, redactDeep, rememberSecrets } from './redact'
