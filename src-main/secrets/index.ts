/**
 * Secrets: each profile's `.env` (parsed with upstream semantics, never copied into process.env), the vault
 * that holds its API keys (`.env`, or the OS keychain in the app), and redaction — every secret value read
 * here is masked, with the credential-shaped patterns, in every log line, error and event of the process.
 * Keys never leave the main process.
 */
export { EnvFileVault, secretsFor, type SecretVault } from './vault'
export { envPath, envFileProblem, readEnvFile, updateEnvFile } from './env-file'
export { redact, redactValues, redactDeep, rememberSecretValues } from './redact'
export { redactForExport } from './export-redact'
