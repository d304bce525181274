/**
 * Per-profile configuration: `config.yaml` (one section reader, the typed readers config/ itself needs, with
 * upstream defaults), runtime resolution for provider clients, the Settings page's read/write, the memory
 * provider choice, and the profile's persona (SOUL.md). Secrets (`.env`, vaults, redaction) are `secrets/`.
 */
export { loadConfig, configProblem, isPlainObject, configPath, type RawConfig } from './load-config'
export { readSection, agentSettings, isDemoConfig, busyInputMode } from './settings-schema'
export { resolveRuntime, type ResolvedRuntime } from './runtime'
export { readSettings, writeSettings } from './settings'
export { writeMemoryProvider } from './memory-provider-setting'
export { readSoul } from './soul'
