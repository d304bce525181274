/**
 * Where a profile's API keys live. `EnvFileVault` keeps them in `<home>/.env` (0600), like upstream; the
 * Electron entry plugs in an OS-keychain vault (safeStorage) with the same interface. There is no process-wide
 * default: the composition root builds one vault per host graph and hands it to every reader (gateway, cron,
 * API server, handlers), so two graphs in one process never see each other's vault.
 */
import { envPath, readEnvFile, updateEnvFile } from './env-file'
import { rememberSecrets } from './redact'

export interface SecretVault {
  /** Reported to the renderer as `apiKeyStorage`. */
  readonly storage: 'env_file' | 'safe_storage'
  /** Every secret this vault holds for the profile at `home`. */
  read(home: string): Record<string, string>
  /** Set a secret; `null` removes it. */
  write(home: string, name: string, value: string | null): void
}

export class EnvFileVault implements SecretVault {
  readonly storage = 'env_file' as const
  read(home: string): Record<string, string> {
    return readEnvFile(envPath(home))
  }
  write(home: string, name: string, value: string | null): void {
    updateEnvFile(envPath(home), name, value)
  }
}

/**
 * A profile's secret scope: its `.env`, overlaid by a non-file vault when one is installed. Never reads
 * or writes process.env.
 */
export function secretsFor(home: string, vault: SecretVault): Record<string, string> {
  const fromFile = readEnvFile(envPath(home))
  const all = vault.storage === 'env_file' ? fromFile : { ...fromFile, ...vault.read(home) }
  // Every value read here is masked in logs, errors and events from now on (redaction by value).
  rememberSecrets(all)
  return all
}
