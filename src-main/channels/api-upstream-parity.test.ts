// Where a client would tell Caduceus's API server from upstream's, found by sending the same requests to both (upstream
// 9a75ff04's api_server.py with its own agent on a scripted provider): each case here is what upstream did, replayed
// through this server's real HTTP listener.
import { rmSync } from 'node:fs'
import { connect } from 'node:net'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider } from '../agent/scripted'
import { type Host } from '../host'
import { apiConversations } from '../host/app-channels'
import { startApiServer, type ApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'

let root: string
let host: Host
let provider: ScriptedProvider
let server: ApiServer
let client: OpenAI
const KEY = 'hk_upstream_parity_key'
let calls = 0

type Msg = { role: string; content: unknown }
const wire = (req: RecordedRequest) =>
  ((req.body?.messages ?? []) as Msg[])
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')}`)
const lastUser = (req: RecordedRequest) =>
  wire(req)
    .findLast((m) => m.startsWith('user:'))
    ?.slice(5) ?? ''

beforeAll(async () => {
  provider = await startScriptedProvider({
    handler: (req) => {
      const n = ++calls
      const msgs = (req.body?.messages ?? []) as Msg[]
      if (msgs.at(-1)?.role === 'tool') return { text: `checked ${n}` }
      if (lastUser(req).includes('TOOL'))
        return { text: 'Looking. ', toolCalls: [{ name: 'no_such_tool', arguments: {} }] }
      return { text: `answer ${n}` }
    }
  })
  ;({ root, host } = await apiHostHome({ prefix: 'cad-api-parity-', baseUrl: provider.baseUrl, key: KEY }))
  server = await startApiServer({
    gateway: host.gateway,
    vault: host.vault,
    profile: 'default',
    home: root,
    port: 0,
    sessions: apiConversations(host.stores, 'default')
  })
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

const rowsOf = (sid: string) =>
  host.stores
    .get('default')
    .getMessagesAsConversation(sid)
    .map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : ''}`)

/** A chat request whose headers are written as raw bytes (Node's own client will not send bytes that are not text). */
function rawChat(headers: Buffer, text: string): Promise<{ status: number; head: string; body: string }> {
  const url = new URL(server.url)
  const body = Buffer.from(JSON.stringify({ model: 'hermes-agent', messages: [{ role: 'user', content: text }] }))
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(
        Buffer.concat([
          Buffer.from(
            `POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${KEY}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`
          ),
          headers,
          Buffer.from('\r\n'),
          body
        ])
      )
    )
    const got: Buffer[] = []
    socket.on('data', (d) => got.push(d))
    socket.on('end', () => {
      const all = Buffer.concat(got).toString('latin1')
      const [head, ...rest] = all.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head!)?.[1] ?? 0), head: head!, body: rest.join('\r\n\r\n') })
    })
    socket.on('error', reject)
  })
}
const headerOf = (head: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? null

describe('session headers whose bytes are not UTF-8', () => {
  // Upstream (aiohttp) keeps each such byte as an escape that its header writer drops: it answers 200, naming the id
  // without them (`abc\xff\xfedef` → `abcdef`). It then fails to store the turn (SQLite refuses the escapes); here the
  // turn is stored under the id the answer names, so a client that sends that id back continues it.
  it('runs the turn under the id without them and names that id, as upstream answers', async () => {
    const sent = Buffer.concat([
      Buffer.from('X-Hermes-Session-Id: abc'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('def\r\nX-Hermes-Session-Key: key-'),
      Buffer.from([0xe9]),
      Buffer.from('1\r\n')
    ])
    const r = await rawChat(sent, 'odd bytes')
    expect(r.status).toBe(200)
    expect(headerOf(r.head, 'x-hermes-session-id')).toBe('abcdef')
    expect(headerOf(r.head, 'x-hermes-session-key')).toBe('key-1')
    expect(rowsOf('abcdef')).toEqual(['user:odd bytes', `assistant:answer ${calls}`])
    const next = await client.chat.completions
      .create(
        { model: 'hermes-agent', messages: [{ role: 'user', content: 'again' }] },
        {
          headers: { 'X-Hermes-Session-Id': 'abcdef' }
        }
      )
      .withResponse()
    expect(next.response.headers.get('x-hermes-session-id')).toBe('abcdef')
    expect(wire(provider.requests.at(-1)!)).toEqual(['user:odd bytes', `assistant:answer ${calls - 1}`, 'user:again'])
  })
})

describe('what the model reads of a conversation without a session header', () => {
  // Upstream's agent is given the request's messages, whatever the session stored: a chat UI resends text only, so
  // the model does not see the stored tool calls of an earlier turn, as upstream's does not.
  it("the request's messages, not the stored tool calls; a named session then reads what is stored", async () => {
    const first = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'parity TOOL please' }] })
      .withResponse()
    const sid = first.response.headers.get('x-hermes-session-id')!
    const reply = first.data.choices[0]!.message.content!
    expect(rowsOf(sid).some((r) => r.startsWith('tool:'))).toBe(true)
    const history = [
      { role: 'user' as const, content: 'parity TOOL please' },
      { role: 'assistant' as const, content: reply }
    ]
    const next = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [...history, { role: 'user', content: 'and now?' }] })
      .withResponse()
    expect(next.response.headers.get('x-hermes-session-id')).toBe(sid)
    expect(wire(provider.requests.at(-1)!)).toEqual([`user:parity TOOL please`, `assistant:${reply}`, 'user:and now?'])
    // The same session named by the header (upstream loads the stored conversation then): its rows, tool calls too.
    await client.chat.completions.create(
      { model: 'hermes-agent', messages: [{ role: 'user', content: 'by name' }] },
      { headers: { 'X-Hermes-Session-Id': sid } }
    )
    const named = wire(provider.requests.at(-1)!)
    expect(named.some((m) => m.startsWith('tool:'))).toBe(true)
    expect(named.slice(-3)).toEqual(['user:and now?', `assistant:answer ${calls - 1}`, 'user:by name'])
  })
})

describe('/v1/runs reads its input items as /v1/responses does', () => {
  const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }
  const run = async (body: Record<string, unknown>) => {
    const r = await fetch(`${server.url}/v1/runs`, { method: 'POST', headers: auth, body: JSON.stringify(body) })
    const json = (await r.json()) as { run_id?: string; error?: { message: string } }
    if (r.status !== 202) return { status: r.status, error: json.error?.message }
    for (;;) {
      const s = (await (await fetch(`${server.url}/v1/runs/${json.run_id}`, { headers: auth })).json()) as {
        status: string
        output: string | null
        session_id: string
      }
      if (!['queued', 'running'].includes(s.status)) return { status: 202, run: s }
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it('a function_call_output answering a chained response’s call is the turn, in that response’s session', async () => {
    const { data: r1, response } = await client.responses
      .create({ model: 'hermes-agent', input: 'runs TOOL call' })
      .withResponse()
    const call = r1.output.find((o) => o.type === 'function_call')!
    const out = await run({
      model: 'hermes-agent',
      previous_response_id: r1.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'ran it: 7' }]
    })
    expect(out.run?.status).toBe('completed')
    expect(out.run?.session_id).toBe(response.headers.get('x-hermes-session-id'))
    expect(lastUser(provider.requests.at(-1)!)).toBe(
      `Output of function call ${call.call_id} (no_such_tool):\nran it: 7`
    )
    // A call_id the chain never listed: refused as /v1/responses refuses it.
    const wrong = await run({
      previous_response_id: r1.id,
      input: [{ type: 'function_call_output', call_id: 'call_made_up', output: 'x' }]
    })
    expect(wrong).toEqual({
      status: 400,
      error: 'No tool call found for function call output with call_id call_made_up.'
    })
  })

  // Upstream's /v1/runs takes these (202): replayed tool items are skipped, an item without a role is the user's.
  it('items that are no messages, items without a role and bare strings', async () => {
    const replayed = await run({
      input: [
        { role: 'user', content: 'look it up' },
        { type: 'function_call', call_id: 'call_7', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_7', output: 'found' },
        { role: 'user', content: 'and what did it find?' }
      ]
    })
    expect(replayed.run?.status).toBe('completed')
    expect(wire(provider.requests.at(-1)!)).toEqual(['user:look it up\n\nand what did it find?'])
    expect((await run({ input: [{ content: 'an item with no role' }] })).run?.status).toBe('completed')
    expect(lastUser(provider.requests.at(-1)!)).toBe('an item with no role')
    // (upstream crashes on a bare string item: 500; /v1/responses takes it as the user's)
    expect((await run({ input: ['a bare string'] })).run?.status).toBe('completed')
  })
})

describe("Open WebUI's retrieval (RAG) requests", () => {
  // Open WebUI's default: the request that retrieved sources carries them in its last user message, its RAG template
  // (task, rules, the sources in <source> tags, the query) put before what the user typed; later requests show that
  // message as typed. It also sends `files`, `metadata` and `user`, which both servers leave alone. Upstream keys the
  // first request's session on the decorated message and every later one on the typed one: two sessions, the second
  // holding the rest of the conversation. Here the third turn branched off, its stored second message not being the one
  // sent back.
  const template = (sources: string[], query: string) =>
    `### Task:\nAnswer the query from the sources below, citing [id] where a source has one.\n\n<context>\n` +
    sources.map((s, i) => `<source id="${i + 1}" name="handbook.pdf">${s}</source>`).join('\n') +
    `\n</context>\n\n<user_query>\n${query}\n</user_query>\n`
  const extra = {
    files: [{ type: 'file', id: 'f-1', name: 'handbook.pdf', status: 'uploaded' }],
    metadata: { chat_id: 'chat-1', message_id: 'm-1', features: { web_search: false } },
    user: 'u-1'
  }

  it('reaches the model with its sources on every turn, and the turns after the first stay one session', async () => {
    const system = { role: 'system' as const, content: 'You are a helpful assistant.' }
    const history: OpenAI.ChatCompletionMessageParam[] = []
    const sessions: string[] = []
    const turns: Array<[string, string]> = [
      ['What is the refund window?', 'Refunds are accepted within 30 days.'],
      ['And for sale items?', 'Sale items: 14 days.'],
      ['Who pays shipping?', 'The buyer pays shipping.']
    ]
    for (const [query, source] of turns) {
      const messages = [...history, { role: 'user' as const, content: `${template([source], query)}\n${query}` }]
      const { data, response } = await client.chat.completions
        .create({ model: 'hermes-agent', stream: true, messages: [system, ...messages], ...extra } as never)
        .withResponse()
      let reply = ''
      for await (const c of data as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>)
        reply += c.choices[0]?.delta?.content ?? ''
      expect(response.status).toBe(200)
      sessions.push(response.headers.get('x-hermes-session-id')!)
      // The model reads the sources in this turn's message, after the earlier turns as typed.
      expect(wire(provider.requests.at(-1)!)).toEqual([
        ...history.map((m) => `${m.role}:${m.content as string}`),
        `user:${template([source], query)}\n${query}`
      ])
      history.push({ role: 'user', content: query }, { role: 'assistant', content: reply })
    }
    expect(sessions[1]).not.toBe(sessions[0])
    expect(sessions[2]).toBe(sessions[1])
    expect(rowsOf(sessions[1]!).filter((r) => r.startsWith('user:'))).toEqual([
      'user:What is the refund window?',
      `user:${template([turns[1]![1]], turns[1]![0])}\n${turns[1]![0]}`,
      `user:${template([turns[2]![1]], turns[2]![0])}\n${turns[2]![0]}`
    ])
  })
})

describe('a chained Response whose input holds more than one message', () => {
  // Upstream's model reads the chain's history, then every input item before the last, then the last; here the items
  // before the last were dropped (the chained session was read, and the request's items only seed a new session).
  it('reads them after the chain, and they stay in the chain for the next response', async () => {
    const first = await client.responses.create({ model: 'hermes-agent', input: 'chain opener' })
    const second = await client.responses.create({
      model: 'hermes-agent',
      previous_response_id: first.id,
      input: [
        { role: 'user', content: 'new A' },
        { role: 'assistant', content: 'said between' },
        { role: 'user', content: 'new B' }
      ]
    })
    expect(wire(provider.requests.at(-1)!)).toEqual([
      'user:chain opener',
      `assistant:${first.output_text}`,
      'user:new A',
      'assistant:said between',
      'user:new B'
    ])
    await client.responses.create({ model: 'hermes-agent', previous_response_id: second.id, input: 'and then' })
    expect(wire(provider.requests.at(-1)!).slice(2)).toEqual([
      'user:new A',
      'assistant:said between',
      'user:new B',
      `assistant:${second.output_text}`,
      'user:and then'
    ])
  })
})
