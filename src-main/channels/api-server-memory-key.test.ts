// `X-Hermes-Session-Key` on the API server, sent by the official `openai` SDK as a client header: the caller's stable
// long-term memory scope reaches the memory provider the agent is built with (initialize's `gatewaySessionKey`, as
// upstream hands `gateway_session_key` to its providers), is echoed on chat, Responses and Runs answers, streamed or
// not, and a different key on the same session builds an agent of its own; a malformed key is refused with
// upstream's 400, before any turn runs.
import { rmSync } from 'node:fs'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startScriptedProvider, type ScriptedProvider } from '../agent/scripted'
import { type Host } from '../host'
import { writePlugin } from '../host/test-fixtures/memory-host'
import { apiHostHome } from './test-fixtures/api-home'
import { waitUntil } from '../tools/test-fixtures/helpers'
import type { ChannelsStatus } from '@shared/contract'

const KEY = 'hk_memory_key_test_key'
const REC = '__cadMemoryKeyRec'
type Init = { sessionId: string; gatewaySessionKey: string | null; platform: string }
const inits = (): Init[] => ((globalThis as Record<string, unknown>)[REC] as Init[] | undefined) ?? []

// The recorder array is looked up per call: the module is loaded once, the tests reset the array.
const PLUGIN = `
export function createProvider() {
  return {
    name: 'keyrec',
    isAvailable: () => true,
    initialize(sessionId, o) {
      ;(globalThis[${JSON.stringify(REC)}] ??= []).push({ sessionId, gatewaySessionKey: o.gatewaySessionKey ?? null, platform: o.platform })
    },
    getToolSchemas: () => [],
    shutdown() {}
  }
}
`

let root: string
let host: Host
let provider: ScriptedProvider
let base: string
const sdk = (headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${base}/v1`, apiKey: KEY, maxRetries: 0, defaultHeaders: headers })

beforeAll(async () => {
  provider = await startScriptedProvider({
    // A caller's message starting "save:" gets a memory call first (the turn's reply after it: 'noted').
    handler: (req) => {
      const last = (req.body?.messages as Array<{ role: string; content: unknown }> | undefined)?.at(-1)
      if (last?.role === 'user' && String(last.content).startsWith('save:'))
        return {
          toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Likes tea.' } }]
        }
      return { text: 'noted' }
    }
  })
  ;({ root, host } = await apiHostHome({
    prefix: 'cad-api-memkey-',
    baseUrl: provider.baseUrl,
    key: KEY,
    extraConfig: 'memory:\n  provider: keyrec\n',
    before: (home) => void writePlugin(home, 'keyrec', PLUGIN)
  }))
  // The Gateway page's switch, as a user turns the API server on.
  const r = await host.dispatcher.invoke('channels.apiServer', { enabled: true, profile: 'default' })
  if (!r.ok) throw new Error(r.error.message)
  base = (r.output as ChannelsStatus).apiServer.url!.replace(/\/v1\/?$/, '')
})

beforeEach(() => {
  ;(globalThis as Record<string, unknown>)[REC] = []
})

afterAll(async () => {
  await host?.close()
  await provider?.close()
  delete (globalThis as Record<string, unknown>)[REC]
  rmSync(root, { recursive: true, force: true })
})

describe('X-Hermes-Session-Key', () => {
  it('reaches the memory provider and comes back on a chat completion, streamed or not', async () => {
    const scope = 'agent:main:webui:dm:user-42'
    const { data, response } = await sdk({ 'X-Hermes-Session-Key': scope })
      .chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'remember me' }] })
      .withResponse()
    expect(data.choices[0]!.message.content).toBe('noted')
    expect(response.headers.get('x-hermes-session-key')).toBe(scope)
    expect(inits()).toEqual([
      { sessionId: response.headers.get('x-hermes-session-id'), gatewaySessionKey: scope, platform: 'api_server' }
    ])

    const stream = await sdk({ 'X-Hermes-Session-Key': 'agent:main:webui:dm:user-7' })
      .chat.completions.create({ model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse()
    let text = ''
    for await (const c of stream.data) text += c.choices[0]?.delta.content ?? ''
    expect(text).toBe('noted')
    expect(stream.response.headers.get('x-hermes-session-key')).toBe('agent:main:webui:dm:user-7')
    expect(inits().at(-1)!.gatewaySessionKey).toBe('agent:main:webui:dm:user-7')
  })

  it('a different key on the same session gets an agent of its own; none sent, none handed on or echoed', async () => {
    const session = 'memkey-same-session'
    const say = (headers: Record<string, string>, content: string) =>
      sdk({ 'X-Hermes-Session-Id': session, ...headers })
        .chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'user', content }] })
        .withResponse()
    await say({ 'X-Hermes-Session-Key': 'scope-a' }, 'one')
    await say({ 'X-Hermes-Session-Key': 'scope-a' }, 'two') // the cached agent: no second initialize
    await say({ 'X-Hermes-Session-Key': 'scope-b' }, 'three')
    const plain = await say({}, 'four')
    expect(plain.response.headers.get('x-hermes-session-key')).toBeNull()
    expect(inits().map((i) => [i.sessionId, i.gatewaySessionKey])).toEqual([
      [session, 'scope-a'],
      [session, 'scope-b'],
      [session, null]
    ])
  })

  it('is echoed on a Response and on a run, and reaches their agents', async () => {
    const { data, response } = await sdk({ 'X-Hermes-Session-Key': 'resp-scope' })
      .responses.create({ model: 'hermes-agent', input: 'a response' })
      .withResponse()
    expect(data.output_text).toBe('noted')
    expect(response.headers.get('x-hermes-session-key')).toBe('resp-scope')

    const run = await fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        'x-hermes-session-key': 'run-scope'
      },
      body: JSON.stringify({ input: 'a run' })
    })
    expect(run.status).toBe(202)
    expect(run.headers.get('x-hermes-session-key')).toBe('run-scope')
    const { run_id } = (await run.json()) as { run_id: string }
    // The run answers 202 at once; its turn ends later (and must not spill into the next test's counts).
    let status = 'queued'
    for (let i = 0; i < 1200 && ['queued', 'running'].includes(status); i++) {
      await new Promise((r) => setTimeout(r, 25))
      const s = await fetch(`${base}/v1/runs/${run_id}`, { headers: { authorization: `Bearer ${KEY}` } })
      status = ((await s.json()) as { status: string }).status
    }
    expect(status).toBe('completed')
    expect(inits().map((i) => i.gatewaySessionKey)).toEqual(['resp-scope', 'run-scope'])
  })

  it('a key too long or with a control character is refused with 400 before any turn', async () => {
    const before = provider.requests.length
    const tooLong = sdk({ 'X-Hermes-Session-Key': 'k'.repeat(257) }).chat.completions.create({
      model: 'hermes-agent',
      messages: [{ role: 'user', content: 'x' }]
    })
    await expect(tooLong).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Session key too long')
    })
    // Node's HTTP client will not send CR/LF in a header; a NUL-free tab-separated key is fine, a raw socket tests NUL.
    const nul = await rawRequest('agent:main\u0000x')
    expect(nul.status).toBe(400)
    expect(provider.requests.length).toBe(before)
    expect(inits()).toEqual([])
  })
})

describe('memory.nudge_interval on the API server', () => {
  it("a caller's conversation at its 10th user message (upstream's default) is followed by a memory review", async () => {
    const texts = (q: (typeof provider.requests)[number]) =>
      ((q.body?.messages ?? []) as Array<{ role: string; content: unknown }>).map(
        (m) => `${m.role}:${String(m.content)}`
      )
    const history = Array.from({ length: 9 }, (_, i) => [
      { role: 'user' as const, content: `nudge ${i + 1}` },
      { role: 'assistant' as const, content: 'noted' }
    ]).flat()
    const before = provider.requests.length
    const data = await sdk().chat.completions.create({
      model: 'hermes-agent',
      messages: [...history, { role: 'user', content: 'nudge 10' }]
    })
    expect(data.choices[0]!.message.content).toBe('noted')
    // Upstream builds an agent per request and counts the caller's user messages: the 10th answered, a review runs
    // on the whole conversation, its reply included, ending in the review's own user message.
    const isReview = (q: (typeof provider.requests)[number]) => {
      const t = texts(q)
      return (
        t.includes('user:nudge 10') &&
        t.at(-2) === 'assistant:noted' &&
        t.at(-1)!.startsWith('user:') &&
        t.at(-1) !== 'user:nudge 10'
      )
    }
    await waitUntil(() => provider.requests.slice(before).some(isReview))
    const review = provider.requests.slice(before).find(isReview)!
    expect(texts(review).filter((t) => t.startsWith('user:nudge'))).toHaveLength(10)
  })

  it("counts a continued session's user messages as upstream's new agent per request does, a memory call or not", async () => {
    const turn = (n: number) => (n === 2 ? 'save: I like tea' : `chat ${n}`)
    const isReview = (q: (typeof provider.requests)[number]) => {
      const msgs = (q.body?.messages ?? []) as Array<{ role: string; content: unknown }>
      const last = msgs.at(-1)
      return (
        msgs.some((m) => m.content === 'chat 1') && last?.role === 'user' && !/^(chat|save:)/.test(String(last.content))
      )
    }
    const before = provider.requests.length
    const history: Array<{ role: 'user' | 'assistant'; content: string }> = []
    let sid: string | null = null
    for (let n = 1; n <= 10; n++) {
      history.push({ role: 'user', content: turn(n) })
      const { data, response } = await sdk(sid ? { 'X-Hermes-Session-Id': sid } : {})
        .chat.completions.create({ model: 'hermes-agent', messages: history })
        .withResponse()
      sid ??= response.headers.get('x-hermes-session-id')
      history.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' })
      // Upstream's agent for message 2 calls memory and is then dropped: no review before the 10th message.
      if (n < 10) expect(provider.requests.slice(before).some(isReview)).toBe(false)
    }
    // Message 2's memory call ran (its result went back to the model).
    const saved = provider.requests
      .slice(before)
      .some((q) => (q.body?.messages as Array<{ role: string }>).at(-1)?.role === 'tool')
    expect(saved).toBe(true)
    // The 10th user message (upstream's default interval) is answered, then reviewed, as with no memory call.
    await waitUntil(() => provider.requests.slice(before).some(isReview))
  })
})

/** A chat request whose X-Hermes-Session-Key carries bytes Node's client refuses to send: written on a raw socket. */
async function rawRequest(key: string): Promise<{ status: number }> {
  const { connect } = await import('node:net')
  const url = new URL(base)
  const body = JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: 'x' }] })
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${KEY}\r\n` +
          `Content-Type: application/json\r\nX-Hermes-Session-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`
      )
    })
    let text = ''
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0) }))
    socket.on('error', reject)
  })
}
