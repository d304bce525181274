// The OpenAI-compatible API server driven by the official `openai` SDK as the client, on a real host
// whose profile uses the keyless demo provider (hermes-channels §1, seed 003).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asyncDeliverySupported, getSessionEnv } from '../gateway'
import { createHost, type Host } from '../host'
import { createLogger } from '../host/log/log'
import { guardServer, safeDecodePath } from '../host/transport/request-guards'
import { startApiServer, type ApiServer } from './index'
import { startScriptedProvider, type ScriptedProvider } from '../agent/scripted'
import { apiHostHome } from './test-fixtures/api-home'

let root: string
let host: Host
let server: ApiServer
let client: OpenAI
const KEY = 'hk_test_key_0123456789'
/** The browser origin allowed by API_SERVER_CORS_ORIGINS. */
const APP_ORIGIN = 'http://app.example'

const sessionRow = (id: string) => {
  const db = new Database(join(root, 'state.db'), { readonly: true })
  try {
    return db.prepare('SELECT id, source, message_count, session_key FROM sessions WHERE id = ?').get(id) as
      { id: string; source: string; message_count: number; session_key: string | null } | undefined
  } finally {
    db.close()
  }
}
const count = (sql: string) => {
  const db = new Database(join(root, 'state.db'), { readonly: true })
  try {
    return (db.prepare(sql).get() as { n: number }).n
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cad-api-'))
  writeFileSync(join(root, 'config.yaml'), 'model:\n  default: demo-model\n  provider: demo\n')
  writeFileSync(join(root, '.env'), `API_SERVER_KEY=${KEY}\nAPI_SERVER_CORS_ORIGINS=${APP_ORIGIN}\n`, { mode: 0o600 })
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, live: false, log: createLogger() })
  server = await startApiServer({
    gateway: host.gateway,
    vault: host.vault,
    profile: 'default',
    home: root,
    port: 0,
    guards: { decodePath: safeDecodePath, server: (s) => guardServer(s) }
  })
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('API server through the openai SDK', () => {
  it('lists the advertised model and its capabilities', async () => {
    const models = await client.models.list()
    expect(models.data.map((m) => [m.id, m.owned_by])).toEqual([['hermes-agent', 'hermes']])
    const caps = await (
      await fetch(`${server.url}/v1/capabilities`, { headers: { authorization: `Bearer ${KEY}` } })
    ).json()
    expect(caps.object).toBe('hermes.api_server.capabilities')
    expect(caps.features.session_continuity_header).toBe('X-Hermes-Session-Id')
    expect((await (await fetch(`${server.url}/health`)).json()).status).toBe('ok')
    // trailing slashes are trimmed, slashes inside the path are not
    expect((await (await fetch(`${server.url}/v1/health///`)).json()).status).toBe('ok')
    expect((await fetch(`${server.url}/health//x`)).status).not.toBe(200)
  })

  it('answers a completion, records it as an api_server session and names it in the header', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'hello there' }] })
      .withResponse()
    expect(data.choices[0]!.message.content).toContain('hello there')
    expect(data.usage!.total_tokens).toBeGreaterThan(0)
    const sid = response.headers.get('x-hermes-session-id')!
    expect(sessionRow(sid)?.source).toBe('api_server')
    // no routing key, as upstream's api_server rows: its `hermes status` counts every live keyed row as a gateway chat
    expect(sessionRow(sid)?.session_key).toBeNull()
  })

  it('streams several chunks and a final usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'hermes-agent',
      messages: [{ role: 'user', content: 'stream me a reply please' }],
      stream: true,
      stream_options: { include_usage: true }
    })
    const pieces: string[] = []
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      const c = chunk.choices[0]?.delta?.content
      if (c) pieces.push(c)
      if (chunk.usage) usage = chunk.usage
    }
    expect(pieces.length).toBeGreaterThan(2)
    expect(pieces.join('')).toContain('stream me a reply please')
    expect(usage!.completion_tokens).toBeGreaterThan(0)
  })

  it("streams a turn that runs a tool to the SDK's own readers; a plain SSE reader still gets the progress events", async () => {
    // The demo model answers "remember …" with a memory tool call first, then its reply.
    const ask = (n: number) => ({
      model: 'hermes-agent',
      messages: [{ role: 'user' as const, content: `remember that my cat ${n} is called Tom` }]
    })
    // The loop every SDK example writes: each chunk's choices[0].
    let text = ''
    for await (const chunk of await client.chat.completions.create({ ...ask(1), stream: true }))
      text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toMatch(/^\n\nDone\. The tool reported: .*Entry added/) // the break after a tool round
    // The SDK's stream helper rebuilds the whole completion from the same chunks.
    const final = await client.chat.completions.stream(ask(2)).finalChatCompletion()
    expect(final.choices[0]!.message.content).toMatch(/^\n\nDone\. The tool reported: .*Entry added/)
    expect(final.choices[0]!.finish_reason).toBe('stop')
    const events = async (n: number, headers: Record<string, string> = {}) => {
      const raw = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ ...ask(n), stream: true })
      })
      return (await raw.text()).split('\n').filter((l) => l.startsWith('event: '))
    }
    // A client reading the SSE itself (upstream's clients) keeps the named tool-progress events.
    expect(await events(3)).toEqual(['event: hermes.tool.progress', 'event: hermes.tool.progress'])
    // The Vercel AI SDK validates every data frame as a chunk (each progress frame was an error part of its stream).
    expect(await events(4, { 'user-agent': 'ai-sdk/openai-compatible/2.0.92 runtime/node.js/v20' })).toEqual([])
  })

  it("lists a Response's tools for the openai SDK as upstream does; the Vercel AI SDK gets the reply alone", async () => {
    const input = (n: number) => `remember that my dog ${n} is called Rex`
    const sdkAnswer = await client.responses.create({ model: 'hermes-agent', input: input(1) })
    expect(sdkAnswer.output.map((o) => o.type)).toEqual(['function_call', 'function_call_output', 'message'])
    // What the AI SDK sends (its User-Agent); it refused the answer above as "Invalid JSON response".
    const aiSdk = (body: Record<string, unknown>) =>
      fetch(`${server.url}/v1/responses`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'user-agent': 'ai-sdk/openai/3.0.1 ai-sdk/provider-utils/4.0.65 runtime/node.js/v20'
        },
        body: JSON.stringify({ model: 'hermes-agent', ...body })
      })
    const plain = (await (await aiSdk({ input: input(2) })).json()) as OpenAI.Responses.Response
    expect(plain.output.map((o) => o.type)).toEqual(['message'])
    expect(plain.output_text).toMatch(/Entry added/)
    // Streamed: no function_call items, so its stream does not end in finishReason "tool-calls".
    const frames = (await (await aiSdk({ input: input(3), stream: true })).text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; item?: { type: string } })
    expect(frames.filter((f) => f.item).map((f) => f.item!.type)).toEqual(['message', 'message'])
    expect(frames.at(-1)!.type).toBe('response.completed')
  })

  it('retrieves the advertised model by id; an unknown id is a 404 the SDK raises as NotFoundError', async () => {
    const model = await client.models.retrieve('hermes-agent')
    expect(model).toMatchObject({ id: 'hermes-agent', object: 'model', owned_by: 'hermes' })
    const err = await client.models.retrieve('gpt-nope').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OpenAI.NotFoundError)
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found')
    expect((err as Error).message).toContain("'gpt-nope'")
  })

  it('refuses a wrong key with 401 in OpenAI error shape', async () => {
    const bad = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong', maxRetries: 0 })
    const err = await bad.models.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401)
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key')
  })

  it('continues a stored session when X-Hermes-Session-Id is sent', async () => {
    const first = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'first message' }] })
      .withResponse()
    const sid = first.response.headers.get('x-hermes-session-id')!
    const second = await client.chat.completions
      .create(
        { model: 'hermes-agent', messages: [{ role: 'user', content: 'second message' }] },
        { headers: { 'X-Hermes-Session-Id': sid } }
      )
      .withResponse()
    expect(second.response.headers.get('x-hermes-session-id')).toBe(sid)
    expect(sessionRow(sid)?.message_count).toBe(4)
  })

  it('chains Responses with previous_response_id onto one session; GET and DELETE work', async () => {
    const a = await client.responses.create({ model: 'hermes-agent', input: 'tell me about apples' })
    expect(a.output_text).toContain('apples')
    const b = await client.responses.create({ model: 'hermes-agent', input: 'and pears?', previous_response_id: a.id })
    expect(b.previous_response_id).toBe(a.id)
    const got = await client.responses.retrieve(b.id)
    expect(got.output_text).toBe(b.output_text)
    const sid = (
      await fetch(`${server.url}/v1/responses/${a.id}`, { headers: { authorization: `Bearer ${KEY}` } })
    ).headers.get('x-hermes-session-id')!
    expect(sessionRow(sid)?.message_count).toBe(4)
    await client.responses.delete(a.id)
    await expect(client.responses.retrieve(a.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it('keeps stored Responses across a server restart: GET, previous_response_id and conversation names still work', async () => {
    const a = await client.responses.create({ model: 'hermes-agent', input: 'tell me about plums' })
    const named = await client.responses
      .create({ model: 'hermes-agent', input: 'a named one', conversation: 'orchard' })
      .withResponse()
    const dir = join(root, 'caduceus', 'api-responses')
    expect(statSync(join(dir, `${a.id}.json`)).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    await server.close()
    server = await startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home: root, port: 0 })
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
    expect((await client.responses.retrieve(a.id)).output_text).toBe(a.output_text)
    const b = await client.responses.create({ model: 'hermes-agent', input: 'and now?', previous_response_id: a.id })
    const sid = (
      await fetch(`${server.url}/v1/responses/${b.id}`, { headers: { authorization: `Bearer ${KEY}` } })
    ).headers.get('x-hermes-session-id')!
    expect(sessionRow(sid)?.message_count).toBe(4)
    const next = await client.responses
      .create({ model: 'hermes-agent', input: 'the named one, again', conversation: 'orchard' })
      .withResponse()
    expect(next.response.headers.get('x-hermes-session-id')).toBe(named.response.headers.get('x-hermes-session-id'))
    // A crafted id never names a path outside the folder.
    const traversal = await fetch(`${server.url}/v1/responses/..%2F..%2Fconfig.yaml`, {
      headers: { authorization: `Bearer ${KEY}` }
    })
    expect([400, 404]).toContain(traversal.status)
    expect(await traversal.text()).not.toContain('demo-model')
  })

  it('streams a Response as output_text deltas ending in response.completed', async () => {
    const stream = await client.responses.create({
      model: 'hermes-agent',
      input: 'stream a response about plums',
      stream: true
    })
    const deltas: string[] = []
    let completed: OpenAI.Responses.Response | null = null
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') deltas.push(e.delta)
      if (e.type === 'response.completed') completed = e.response
    }
    expect(deltas.length).toBeGreaterThan(2)
    expect(deltas.join('')).toContain('plums')
    expect((await client.responses.retrieve(completed!.id)).output_text).toBe(deltas.join(''))
  })

  it("streams a run's lifecycle events over SSE and reports its status", async () => {
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }
    const submitted = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ input: 'run this please' })
    })
    expect(submitted.status).toBe(202)
    const accepted = await submitted.json()
    expect(accepted).toEqual({ run_id: expect.stringMatching(/^run_/), status: 'started' })
    const { run_id } = accepted
    const text = await (await fetch(`${server.url}/v1/runs/${run_id}/events`, { headers: auth })).text()
    // Upstream's wire: `data:` frames only (the event name is inside), closed by a `: stream closed` comment.
    expect(text).not.toMatch(/^event:/m)
    expect(text).not.toContain('[DONE]')
    expect(text.trimEnd().endsWith(': stream closed')).toBe(true)
    const events = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)).event)
    expect(events[0]).toBe('message.delta')
    expect(events.at(-1)).toBe('run.completed')
    const status = await (await fetch(`${server.url}/v1/runs/${run_id}`, { headers: auth })).json()
    expect(status.status).toBe('completed')
    expect(status.output).toContain('run this please')
    expect(sessionRow(status.session_id)?.source).toBe('api_server')
  })

  // seed 003: test_delegate_task_runs_inline_on_stateless_channel (API-server counterpart)
  it('runs a background delegate_task inline and the binding ends with the turn', async () => {
    const before = count('SELECT COUNT(*) AS n FROM async_delegations')
    const { data } = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'please delegate: say BANANA' }] })
      .withResponse()
    expect(data.choices[0]!.message.content).toMatch(/The tool reported/)
    expect(data.choices[0]!.message.content).toMatch(/BANANA/)
    expect(count('SELECT COUNT(*) AS n FROM async_delegations')).toBe(before)
    expect(count("SELECT COUNT(*) AS n FROM sessions WHERE source = 'subagent'")).toBeGreaterThan(0)
    // Nothing of the API-server binding leaks into the process after the turn.
    expect(asyncDeliverySupported()).toBe(true)
    expect(getSessionEnv('HERMES_SESSION_PLATFORM')).not.toBe('api_server')
  })

  it('lets a browser app on an allowed origin call through the openai SDK: its preflight allows every header the SDK sends', async () => {
    // The header names the SDK really sends (its own fetch sees them), stream helper included.
    const sent = new Set<string>()
    const browserSdk = new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: KEY,
      maxRetries: 0,
      dangerouslyAllowBrowser: true,
      fetch: (url, init) => {
        new Headers(init?.headers).forEach((_v, name) => sent.add(name))
        return fetch(url, init)
      }
    })
    await browserSdk.chat.completions
      .stream({ model: 'hermes-agent', messages: [{ role: 'user', content: 'hi' }] })
      .done()
    // What a browser asks before sending them: every name outside the CORS safelist (it sets User-Agent itself).
    const asked = [...sent].filter((h) => !['accept', 'user-agent'].includes(h))
    expect(asked).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-stainless-lang']))
    const preflight = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: APP_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': asked.join(',')
      }
    })
    expect(preflight.status).toBe(200)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN)
    const allowed = preflight.headers.get('access-control-allow-headers')!.split(/,\s*/)
    expect(asked.filter((h) => !allowed.includes(h))).toEqual([])
  })

  it('refuses an oversized body with 413', async () => {
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(10_000_001) }] })
    })
    expect(r.status).toBe(413)
    expect((await r.json()).error.code).toBe('body_too_large')
  })

  it('refuses a foreign Host (DNS rebinding) and an Origin not in API_SERVER_CORS_ORIGINS', async () => {
    const { request } = await import('node:http')
    const status = (headers: Record<string, string>) =>
      new Promise<number>((done, fail) => {
        const req = request(
          `${server.url}/v1/models`,
          { headers: { authorization: `Bearer ${KEY}`, ...headers } },
          (res) => {
            res.resume()
            done(res.statusCode!)
          }
        )
        req.on('error', fail)
        req.end()
      })
    expect(await status({ host: `evil.example:${server.port}` })).toBe(403)
    expect(await status({ origin: 'http://evil.example' })).toBe(403)
    expect(await status({})).toBe(200)
  })

  it('refuses a malformed path before routing (shared request guard)', async () => {
    const r = await fetch(`${server.url}/v1/responses/%E0%A4%A`, { headers: { authorization: `Bearer ${KEY}` } })
    expect(r.status).toBe(400)
  })
})

describe('API server start-up', () => {
  it('refuses a non-loopback host without a key before listening', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-api-nokey-'))
    try {
      writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: demo\n')
      await expect(
        startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home, host: '0.0.0.0', port: 0 })
      ).rejects.toThrow(/refusing to serve on 0\.0\.0\.0 without API_SERVER_KEY/)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('refuses a short or placeholder key on every host, loopback included, from .env or the environment', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-api-weak-'))
    try {
      writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: demo\n')
      const start = () =>
        startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home, port: 0 })
      writeFileSync(join(home, '.env'), 'API_SERVER_KEY=abc\n')
      await expect(start()).rejects.toThrow(/^refusing to start: API_SERVER_KEY is shorter than 16 characters/)
      writeFileSync(join(home, '.env'), 'API_SERVER_KEY=your_api_key_here\n')
      await expect(start()).rejects.toThrow(/API_SERVER_KEY is a placeholder/)
      writeFileSync(join(home, '.env'), '')
      process.env.API_SERVER_KEY = 'short-env-key'
      await expect(start()).rejects.toThrow(/shorter than 16/)
    } finally {
      delete process.env.API_SERVER_KEY
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('generates a key into the profile .env (0600) on loopback when none is set', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-api-gen-'))
    const s = await startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home, port: 0 })
    try {
      expect(s.generatedKey).toMatch(/^hk_/)
      expect(readFileSync(join(home, '.env'), 'utf8')).toContain(`API_SERVER_KEY=${s.generatedKey}`)
      expect(statSync(join(home, '.env')).mode & 0o777).toBe(0o600)
    } finally {
      await s.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})

// Upstream's settings, reached the way a user reaches them. The provider timeout (config.yaml
// providers.<id>.request_timeout_seconds; test/fixtures/upstream/provider-timeouts) on an API request: a real scripted
// provider slower than it is stopped at it, and a value upstream cannot use is named to the caller (X-Hermes-Warnings)
// instead of being dropped in silence. The turn budget `agent.max_turns: .inf` (test/fixtures/upstream/max-turns): no
// limit on a Session page turn, as upstream's chat has none; 90 on an API request, as upstream's gateway reads it.
describe('upstream settings on API requests and Session page turns', () => {
  let uRoot: string
  let uHost: Host
  let provider: ScriptedProvider
  let uServer: ApiServer
  const U_KEY = 'hk_timeout_test_key'

  beforeAll(async () => {
    // Far slower than the timeout: the provider would answer after 20 s (the call is stopped long before).
    provider = await startScriptedProvider({ handler: () => ({ text: 'too late', delayMs: 20_000 }) })
    ;({ root: uRoot, host: uHost } = await apiHostHome({
      prefix: 'cad-api-timeout-',
      baseUrl: provider.baseUrl,
      key: U_KEY,
      extraConfig:
        'providers:\n  custom:\n    request_timeout_seconds: "0.4"\n    models:\n      m:\n        timeout_seconds: soon\n' +
        'agent:\n  max_turns: .inf\n'
    }))
    uServer = await startApiServer({
      gateway: uHost.gateway,
      vault: uHost.vault,
      profile: 'default',
      home: uRoot,
      port: 0
    })
  })

  afterAll(async () => {
    await uServer?.close()
    await uHost?.close()
    await provider?.close()
    rmSync(uRoot, { recursive: true, force: true })
  })

  it('stops a provider slower than request_timeout_seconds and says which setting was left out', async () => {
    const client = new OpenAI({ baseURL: `${uServer.url}/v1`, apiKey: U_KEY, maxRetries: 0 })
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
    const r = await uHost.dispatcher.invoke(name, input)
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
    return r.output as T
  }
  /** The budget a session was started with, as its row records it (upstream's model_config, json.dumps' bytes). */
  const budgetOf = (sid: string) => {
    const db = new Database(join(uRoot, 'state.db'), { readonly: true })
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
      const off = uHost.bus.subscribe((e) => {
        if (e.event !== 'turn.started') return
        off()
        resolve((e.payload as { sessionId: string }).sessionId)
      })
    })
    const desk = await call<{ sessionId: string }>('sessions.start', { profile: 'default', text: 'take your time' })
    expect(await started).toBe(desk.sessionId)
    expect(budgetOf(desk.sessionId)).toBe('Infinity')
    const client = new OpenAI({ baseURL: `${uServer.url}/v1`, apiKey: U_KEY, maxRetries: 0 })
    const { response } = await client.responses
      .create({ model: 'hermes-agent', input: 'quick', stream: true })
      .withResponse()
    expect(budgetOf(response.headers.get('x-hermes-session-id')!)).toBe('90')
    // the Settings page says so too
    const settings = await call<{ maxIterations: unknown }>('settings.get', { profile: 'default' })
    expect(settings.maxIterations).toBeNull()
  })
})
