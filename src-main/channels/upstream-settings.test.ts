// Upstream's settings, reached the way a user reaches them. The provider timeout (config.yaml
// providers.<id>.request_timeout_seconds; test/fixtures/upstream/provider-timeouts) on an API request: a real scripted
// provider slower than it is stopped at it, and a value upstream cannot use is named to the caller (X-Hermes-Warnings)
// instead of being dropped in silence. The turn budget `agent.max_turns: .inf` (test/fixtures/upstream/max-turns): no
// limit on a Session page turn, as upstream's chat has none; 90 on an API request, as upstream's gateway reads it.
import { join } from 'node:path'
import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'
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
      'providers:\n  custom:\n    request_timeout_seconds: "0.4"\n    models:\n      m:\n        timeout_seconds: soon\n' +
      'agent:\n  max_turns: .inf\n'
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
      'config.yaml providers.custom.models.m.timeout_seconds: "soon" is not a number of seconds above 0, so it is not used.',
      // (and the turn budget the API server cannot read: upstream's gateway reads .inf as 90 too, without a word)
      "config.yaml agent.max_turns is inf, which the API server (as upstream's) reads only as a whole number, so a turn may make 90 model calls."
    ])
    const failed = await (async () => {
      for await (const _ of stream) void _
    })().catch((e: Error) => e)
    expect(String(failed)).toMatch(/the provider sent nothing for 0\.4 s/)
    expect(provider.requests.length).toBeGreaterThan(0)
  })

  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const r = await host.dispatcher.invoke(name, input)
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
    return r.output as T
  }
  /** The budget a session was started with, as its row records it (upstream's model_config, json.dumps' bytes). */
  const budgetOf = (sid: string) => {
    const db = new Database(join(root, 'state.db'), { readonly: true })
    try {
      const row = db.prepare('SELECT model_config FROM sessions WHERE id = ?').get(sid) as { model_config: string }
      return /"max_iterations": ([^,}]+)/.exec(row.model_config)?.[1]
    } finally {
      db.close()
    }
  }

  it('agent.max_turns: .inf is no limit on a Session page turn and 90 on an API request, as upstream reads it', async () => {
    // the row is written as the turn starts (its provider call then times out: no matter here)
    const started = new Promise<string>((resolve) => {
      const off = host.bus.subscribe((e) => {
        if (e.event !== 'turn.started') return
        off()
        resolve((e.payload as { sessionId: string }).sessionId)
      })
    })
    const desk = await call<{ sessionId: string }>('sessions.start', { profile: 'default', text: 'take your time' })
    expect(await started).toBe(desk.sessionId)
    expect(budgetOf(desk.sessionId)).toBe('Infinity')
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
    const { response } = await client.responses
      .create({ model: 'hermes-agent', input: 'quick', stream: true })
      .withResponse()
    expect(budgetOf(response.headers.get('x-hermes-session-id')!)).toBe('90')
    // the Settings page says so too
    const settings = await call<{ maxIterations: unknown }>('settings.get', { profile: 'default' })
    expect(settings.maxIterations).toBeNull()
  })
})
