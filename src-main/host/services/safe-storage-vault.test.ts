// The keychain vault's file: written whole (temp + rename), 0600 whatever the old file's mode, no temp file left.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SafeStorageVault, type SecretCipher } from './safe-storage-vault'
import { SecretMask } from '../../secrets'

const made: string[] = []
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true })
})
/** A reversible stand-in for the OS keychain's cipher (Electron's safeStorage exists only in the app). */
const cipher: SecretCipher = {
  encrypt: (plain) => Buffer.from(plain, 'utf8').toString('base64'),
  decrypt: (text) => Buffer.from(text, 'base64').toString('utf8')
}

describe('SafeStorageVault', () => {
  it('writes .caduceus-secrets.json 0600 (a wider old mode narrowed), whole, with no temp file beside it', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-vault-'))
    made.push(home)
    const vault = new SafeStorageVault(cipher, new SecretMask())
    vault.write(home, 'OPENROUTER_API_KEY', 'sk-or-1')
    const file = join(home, '.caduceus-secrets.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    chmodSync(file, 0o644)
    vault.write(home, 'ANTHROPIC_API_KEY', 'sk-ant-2')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual(['OPENROUTER_API_KEY', 'ANTHROPIC_API_KEY'])
    expect(vault.read(home)).toMatchObject({ OPENROUTER_API_KEY: 'sk-or-1', ANTHROPIC_API_KEY: 'sk-ant-2' })
    vault.write(home, 'OPENROUTER_API_KEY', null)
    expect(vault.read(home).OPENROUTER_API_KEY).toBeUndefined()
    expect(readdirSync(home).filter((f) => f.startsWith('.caduceus-secrets'))).toEqual(['.caduceus-secrets.json'])
  })

  it('a vault file that is not its JSON, or a folder in its place, is an error naming it, never "no keys"', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-vault-'))
    made.push(home)
    const vault = new SafeStorageVault(cipher, new SecretMask())
    writeFileSync(join(home, '.caduceus-secrets.json'), '{"OPENROUTER_API_KEY": "c2stb3It')
    expect(() => vault.read(home)).toThrow(/\.caduceus-secrets\.json is not a JSON object/)
    const other = mkdtempSync(join(tmpdir(), 'cad-vault-'))
    made.push(other)
    mkdirSync(join(other, '.caduceus-secrets.json'))
    expect(() => vault.read(other)).toThrow(/EISDIR/)
  })

  it('a key sealed by another keychain is the only one lost: the others, and one written again, still read', () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-vault-'))
    made.push(home)
    const file = join(home, '.caduceus-secrets.json')
    writeFileSync(file, JSON.stringify({ OLD_KEY: 'sealed-elsewhere', OPENROUTER_API_KEY: cipher.encrypt('sk-or-1') }))
    const picky: SecretCipher = {
      encrypt: cipher.encrypt,
      decrypt: (text) => {
        if (text === 'sealed-elsewhere') throw new Error('Error while decrypting the ciphertext provided')
        return cipher.decrypt(text)
      }
    }
    const vault = new SafeStorageVault(picky, new SecretMask())
    expect(vault.read(home)).toMatchObject({ OPENROUTER_API_KEY: 'sk-or-1' })
    vault.write(home, 'ANTHROPIC_API_KEY', 'sk-ant-2')
    expect(vault.read(home)).toMatchObject({ OPENROUTER_API_KEY: 'sk-or-1', ANTHROPIC_API_KEY: 'sk-ant-2' })
    expect(vault.read(home).OLD_KEY).toBeUndefined()
  })
})
