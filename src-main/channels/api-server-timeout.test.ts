// Upstream's provider timeout (config.yaml providers.<id>.request_timeout_seconds; test/fixtures/upstream/
// provider-timeouts) on an API request: a real scripted provider slower than it is stopped at it, and a value upstream
// cannot use is named to the caller (X-Hermes-Warnings) instead of being dropped in silence.
import { rmSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type ScriptedProvider } from '../agent/scripted'
import { type Host } from '../host'
import { startApiServer, type ApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'

let root: string
let host: Host
let provider: ScriptedProvider
let server: ApiServer
const KEY = 'hk_timeout_test_key'

beforeAll(async () => {
  // Far slower than the timeout: the provider would answer after 20 s (the call is stopped long before).
  provider = await startScriptedProvider({ handler: () => ({ text: 'too late', delayMs: 20_000 }) })
  ;({ root, host } = await apiHostHome({
    prefix: 'cad-api-timeout-',
    baseUrl: provider.baseUrl,
    key: KEY,
    extraConfig:
      'providers:\n  custom:\n    request_timeout_seconds: "0.4"\n    models:\n      m:\n        timeout_seconds: soon\n'
  }))
  server = await startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home: root, port: 0 })
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('the provider timeout on an API request', () => {
  it('stops a provider slower than request_timeout_seconds and says which setting was left out', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: 'answer slowly' }] })
      .withResponse()
    expect(JSON.parse(decodeURIComponent(response.headers.get('x-hermes-warnings') ?? '[]'))).toEqual([
      'config.yaml providers.custom.models.m.timeout_seconds: "soon" is not a number of seconds above 0, so it is not used.'
    ])
    const failed = await (async () => {
      for await (const _ of stream) void _
    })().catch((e: Error) => e)
    expect(String(failed)).toMatch(/the provider sent nothing for 0\.4 s/)
    expect(provider.requests.length).toBeGreaterThan(0)
  })
})
