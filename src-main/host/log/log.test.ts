// The host log: private files, one line per record, size rotation, repeated errors rate-limited, secrets by value.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SecretMask } from '../../secrets/redact'
import { createLogger } from './log'

const base = mkdtempSync(join(tmpdir(), 'cad-log-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('host log', () => {
  it('writes 0600 files in a 0700 folder, one line per record, secrets masked by value', () => {
    const dir = join(base, 'a', 'logs')
    const mask = new SecretMask()
    mask.rememberEnv({ SOME_TOKEN: 'plainvaluewithnoshape42' })
    const log = createLogger({ logFile: join(dir, 'caduceus.log'), errorFile: join(dir, 'errors.log'), mask })
    const err = new Error('boom plainvaluewithnoshape42')
    log.error('test', `failed: ${err.stack}`)
    const text = readFileSync(join(dir, 'errors.log'), 'utf8')
    expect(text.trimEnd().split('\n')).toHaveLength(1)
    expect(text).not.toContain('plainvaluewithnoshape42')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
  })

  it('rotates by size and keeps a bounded number of generations', () => {
    const dir = join(base, 'b')
    const log = createLogger({ logFile: join(dir, 'caduceus.log'), maxBytes: 1000, keep: 2 })
    for (let i = 0; i < 100; i++) log.info('test', `line ${i} ${'y'.repeat(80)}`)
    expect(readdirSync(dir).sort()).toEqual(['caduceus.log', 'caduceus.log.1', 'caduceus.log.2'])
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(1000)
    expect(readFileSync(join(dir, 'caduceus.log'), 'utf8')).toContain('line 99 ')
  })

  it('a repeated error is written a few times per window, then counted', () => {
    const dir = join(base, 'c')
    let t = 0
    const log = createLogger({ errorFile: join(dir, 'errors.log'), burst: 3, windowMs: 1000, now: () => t })
    for (let i = 0; i < 50; i++) log.error('sessions', `sessions.list failed for profile p${i}: file is not a database`)
    t = 5000
    log.error('sessions', 'sessions.list failed for profile p99: file is not a database')
    const lines = readFileSync(join(dir, 'errors.log'), 'utf8').trimEnd().split('\n')
    expect(lines).toHaveLength(5)
    expect(lines[3]).toMatch(/47 more like this/)
  })
})
