/**
 * Where a profile's API keys live. `EnvFileVault` keeps them in `<home>/.env` (0600), like upstream; the
 * Electron entry plugs in an OS-keychain vault (safeStorage) with the same interface. There is no process-wide
 * default: the composition root builds one vault per host graph and hands it to every reader (gateway, cron,
 * API server, handlers), so two graphs in one process never see each other's vault. A vault carries its host's
 * secret mask: every value read through it is masked in that host's lines (and, while the host is open, in the
 * process's last resort).
 */
import { envPath, readEnvFile, updateEnvFile } from './env-file'
import { SecretMask } from './redact'

export interface SecretVault {
  /** Reported to the renderer as `apiKeyStorage`. */
  readonly storage: 'env_file' | 'safe_storage'
  /** Every secret this vault holds for the profile at `home`. */
  read(home: string): Record<string, string>
  /** Set a secret; `null` removes it. */
  write(home: string, name: string, value: string | null): void
  /** The host's mask: what `secretsFor`, `resolveRuntime` and key writes read through this vault is added to it. */
  readonly mask: SecretMask
}

export class EnvFileVault implements SecretVault {
  readonly storage = 'env_file' as const
  /** A host passes its own mask; a vault built alone (a one-shot check) gets one of its own. */
  constructor(readonly mask: SecretMask = new SecretMask()) {}
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
  // Every value read here is masked in the host's logs, errors and events from now on (redaction by value).
  vault.mask.rememberEnv(all)
  return all
}
