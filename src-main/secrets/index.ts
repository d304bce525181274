/**
 * Secrets: each profile's `.env` (parsed with upstream semantics, never copied into process.env), the vault
 * that holds its API keys (`.env`, or the OS keychain in the app), and redaction — every secret value read
 * through a host's vault joins that host's mask (`SecretMask`), which masks it, with the credential-shaped patterns,
 * in the host's log lines, errors and events; `redact` & co. are the process's last resort over the live hosts'
 * masks, for lines no host owns. Keys never leave the main process.
 */
export { EnvFileVault, secretsFor, type SecretVault } from './vault'
export { envPath, envFileProblem, profileEnv, readEnvFile, updateEnvFile } from './env-file'
export { redact, redactValues, redactDeep, SecretMask } from './redact'
export { redactForExport } from './export-redact'
