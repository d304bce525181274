/**
 * Per-profile configuration: `config.yaml` (typed accessors with upstream defaults), `.env` secrets that
 * never touch process.env, runtime resolution for provider clients, and settings read/write for the UI.
 * API keys never leave the main process and never reach a log (`redact`).
 */
import { configPath } from './load-config'
import { agentSettings, isDemoConfig, memoryProvider, providerLimitSettings, section } from './settings-schema'
import { envPath, updateEnvFile } from './env-file'
import { getDefaultVault, setDefaultVault } from './vault'
import { readSettings, writeSettings } from './settings'
import { writeMemoryProvider } from './memory-provider-setting'
import { readSoul, soulPath } from './soul'

export { loadConfig, isPlainObject, type RawConfig } from './load-config'
export { EnvFileVault, secretsFor, type SecretVault } from './vault'
export { resolveRuntime, type ResolvedRuntime } from './runtime'
export { redact, redactValues, redactDeep } from './redact'

/** Typed readers of `config.yaml` sections, with upstream defaults. */
export const configSections = {
  section,
  agent: agentSettings,
  memoryProvider,
  providerLimits: providerLimitSettings,
  isDemo: isDemoConfig
}
/** Where a profile's files live, the one `.env` edit other folders make (API_SERVER_KEY), and its persona. */
export const configFiles = { config: configPath, env: envPath, soul: soulPath, readSoul, updateEnv: updateEnvFile }
/** The process-wide secret vault: the host sets it once at start; readers get it when none is injected. */
export const defaultVault = { get: getDefaultVault, set: setDefaultVault }
/** The Settings page's view of config.yaml + .env, and the memory provider choice. */
export const settingsFile = { read: readSettings, write: writeSettings, writeMemoryProvider }
