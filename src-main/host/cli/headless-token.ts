import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { replaceFile } from '../../files'
import { appDataDir } from '../compose'

const VALID = /^[A-Za-z0-9_-]{32,128}$/

export function tokenPath(): string {
  return join(appDataDir(), 'headless-token')
}

/**
 * The headless host's bearer token, kept (0600, in a 0700 folder) in the app's data folder so a tab that is
 * open when `caduceus serve` restarts reconnects with the token it already holds. `rotate` (the
 * `--rotate-token` flag) replaces it, which signs every open tab out. A missing or malformed file gets a
 * fresh token.
 */
export function loadHeadlessToken(opts: { rotate?: boolean; file?: string } = {}): { token: string; rotated: boolean } {
  const file = opts.file ?? tokenPath()
  if (!opts.rotate && existsSync(file)) {
    try {
      const current = readFileSync(file, 'utf8').trim()
      if (VALID.test(current)) {
        chmodSync(file, 0o600)
        return { token: current, rotated: false }
      }
    } catch {
      // unreadable: replaced below
    }
  }
  const token = randomBytes(32).toString('base64url')
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  replaceFile(file, `${token}\n`, { modeOf: () => 0o600 })
  return { token, rotated: true }
}
