// A saved key must not follow a base-URL change, or a provider switch, to another server (issue 10 item 6).
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

describe('settings.update provider switch', () => {
  const fresh = (config: string, env = '') => {
    const h = mkdtempSync(join(tmpdir(), 'cad-origin-'))
    writeFileSync(join(h, 'config.yaml'), config)
    if (env) writeFileSync(join(h, '.env'), env)
    return h
  }
  const homes: string[] = []
  afterAll(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })))

  it('config.yaml model.api_key never goes to the provider switched to (as upstream: an official provider ignores it)', () => {
    const h = fresh('model:\n  default: m\n  provider: openrouter\n  api_key: sk-or-v1-0123456789abcdef0123\n')
    homes.push(h)
    writeSettings(h, { provider: 'anthropic' }, { vault })
    const rt = resolveRuntime(h, { vault })
    expect(rt).toMatchObject({ provider: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: '' })
    expect(readSettings(h, { vault })).toMatchObject({ apiKeySet: false, apiKeyStorage: 'none' })
  })

  it('a switch that would send the same key to another origin needs the key again; its own key is fine', () => {
    // The key lives in a secret the profile names (model.api_key_env): a switch alone would carry it along.
    const h = fresh(
      'model:\n  default: m\n  provider: openrouter\n  api_key_env: MY_ROUTER_KEY\n',
      'MY_ROUTER_KEY=sk-or-mine-0001\n'
    )
    homes.push(h)
    expect(() => writeSettings(h, { provider: 'anthropic' }, { vault })).toThrow(
      /Moving this profile to https:\/\/api\.anthropic\.com needs its API key again: the saved key is only sent to https:\/\/openrouter\.ai/
    )
    expect(resolveRuntime(h, { vault })).toMatchObject({ provider: 'openrouter', apiKey: 'sk-or-mine-0001' })
    // Typed again with the switch: saved for the new endpoint.
    writeSettings(h, { provider: 'anthropic', apiKey: 'sk-ant-typed-0002' }, { vault })
    expect(resolveRuntime(h, { vault })).toMatchObject({ provider: 'anthropic', apiKey: 'sk-ant-typed-0002' })
    // A switch to a provider whose own key is already there sends that key, not the old one: no question asked.
    const own = fresh(
      'model:\n  default: m\n  provider: openrouter\n',
      'OPENROUTER_API_KEY=sk-or-0003\nANTHROPIC_API_KEY=sk-ant-0004\n'
    )
    homes.push(own)
    writeSettings(own, { provider: 'anthropic' }, { vault })
    expect(resolveRuntime(own, { vault })).toMatchObject({ provider: 'anthropic', apiKey: 'sk-ant-0004' })
  })
})
