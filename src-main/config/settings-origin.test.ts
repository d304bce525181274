// A saved key must not follow a base-URL change to another server (issue 10 item 6).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EnvFileVault } from '../secrets'
import { readSettings, writeSettings } from './settings'
import { resolveRuntime } from './runtime'

const home = mkdtempSync(join(tmpdir(), 'cad-origin-'))
afterAll(() => rmSync(home, { recursive: true, force: true }))
const vault = new EnvFileVault()

describe('settings.update base URL', () => {
  it('moving a keyed profile to another origin needs the key again; same origin does not', () => {
    writeFileSync(
      join(home, 'config.yaml'),
      'model:\n  default: m\n  provider: custom\n  base_url: https://api.one.example/v1\n'
    )
    writeSettings(home, { apiKey: 'key-for-server-one-123' }, { vault })
    expect(() => writeSettings(home, { baseUrl: 'https://collector.evil.example/v1' }, { vault })).toThrow(
      /needs its API key again/
    )
    expect(readSettings(home, { vault }).baseUrl).toBe('https://api.one.example/v1')
    // Same origin, another path: fine.
    expect(writeSettings(home, { baseUrl: 'https://api.one.example/v2' }, { vault }).baseUrl).toBe(
      'https://api.one.example/v2'
    )
    // Another origin WITH a key typed again: fine, and the old key is replaced.
    const moved = writeSettings(
      home,
      { baseUrl: 'https://api.two.example/v1', apiKey: 'key-for-server-two-456' },
      { vault }
    )
    expect(moved).toMatchObject({ baseUrl: 'https://api.two.example/v1', apiKeySet: true })
    // Each custom host's key is named for it, as upstream reads it (api.two.example → TWO_API_KEY): the first
    // server's key stays under its own name and never goes to the second.
    expect(resolveRuntime(home, { vault })).toMatchObject({
      apiKey: 'key-for-server-two-456',
      apiKeyEnv: 'TWO_API_KEY'
    })
    expect(readFileSync(join(home, '.env'), 'utf8')).toContain('TWO_API_KEY=key-for-server-two-456')
  })
})
