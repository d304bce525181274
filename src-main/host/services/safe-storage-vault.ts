import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseJsonOr } from '@shared/contract/errors'
import { readFileIfExists, replaceFile } from '../../files'
import { EnvFileVault, type SecretMask, type SecretVault } from '../../secrets'

/** Encrypt/decrypt with the OS keychain (Electron `safeStorage`); injected so this file never imports electron. */
export interface SecretCipher {
  encrypt(plain: string): string
  decrypt(cipher: string): string
}

/**
 * Keys encrypted with the OS keychain in `<home>/.caduceus-secrets.json` (0600). Secrets already in the
 * profile's `.env` (written by upstream Hermes) are still read, so an existing home keeps working.
 */
export class SafeStorageVault implements SecretVault {
  readonly storage = 'safe_storage' as const
  private readonly env: EnvFileVault
  constructor(
    private readonly cipher: SecretCipher,
    readonly mask: SecretMask
  ) {
    this.env = new EnvFileVault(mask)
  }

  private file(home: string): string {
    return join(home, '.caduceus-secrets.json')
  }

  /**
   * The file's keys, decrypted. Absent: none. There but unreadable or not the vault's JSON: an error naming the file
   * (read as "no keys", every turn would fail for a missing key instead, and a write would drop the rest).
   */
  private load(home: string): Record<string, string> {
    const f = this.file(home)
    const text = readFileIfExists(f)
    if (text === null) return {}
    const raw = parseJsonOr(text, null)
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw new Error(`${f} is not a JSON object of encrypted keys: fix or remove it, then enter the keys again`)
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(raw)) {
      try {
        if (typeof v === 'string') out[k] = this.cipher.decrypt(v)
      } catch {
        // Sealed by another keychain (a copied home, a reset login keyring): that key alone is unreadable here, and
        // entering it again in Settings replaces it; the others still work.
      }
    }
    return out
  }

  read(home: string): Record<string, string> {
    return { ...this.env.read(home), ...this.load(home) }
  }

  write(home: string, name: string, value: string | null): void {
    const f = this.file(home)
    const text = readFileIfExists(f)
    const current = text === null ? {} : (JSON.parse(text) as Record<string, string>)
    if (value === null) delete current[name]
    else current[name] = this.cipher.encrypt(value)
    mkdirSync(dirname(f), { recursive: true })
    // 0600 whatever the old file's mode was; the temp file (it holds the encrypted keys) is removed on failure.
    replaceFile(f, JSON.stringify(current), { modeOf: () => 0o600 })
    // Removing a key must remove it everywhere it could be read from.
    if (value === null) this.env.write(home, name, null)
  }
}
