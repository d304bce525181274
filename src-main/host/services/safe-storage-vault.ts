import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { replaceFile } from '../../files'
import { EnvFileVault, type SecretVault } from '../../secrets'

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
  private readonly env = new EnvFileVault()
  constructor(private readonly cipher: SecretCipher) {}

  private file(home: string): string {
    return join(home, '.caduceus-secrets.json')
  }

  private load(home: string): Record<string, string> {
    const f = this.file(home)
    if (!existsSync(f)) return {}
    try {
      const raw = JSON.parse(readFileSync(f, 'utf8')) as Record<string, string>
      return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, this.cipher.decrypt(v)]))
    } catch {
      return {}
    }
  }

  read(home: string): Record<string, string> {
    return { ...this.env.read(home), ...this.load(home) }
  }

  write(home: string, name: string, value: string | null): void {
    const f = this.file(home)
    const current = existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as Record<string, string>) : {}
    if (value === null) delete current[name]
    else current[name] = this.cipher.encrypt(value)
    mkdirSync(dirname(f), { recursive: true })
    // 0600 whatever the old file's mode was; the temp file (it holds the encrypted keys) is removed on failure.
    replaceFile(f, JSON.stringify(current), { modeOf: () => 0o600 })
    // Removing a key must remove it everywhere it could be read from.
    if (value === null) this.env.write(home, name, null)
  }
}
