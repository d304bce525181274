// Where a client would tell Caduceus's API server from upstream's, found by sending the same requests to both: upstream's
// answers with its own agent on a scripted provider are in test/fixtures/upstream/api-parity (recorded by
// scripts/golden/api_parity_cases.py), replayed here through this server's real HTTP listener.
import { readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
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

type Said = Array<[string, string]>
type ChatTurn = {
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>
  status: number
  reply: string
  session: string
  systemSeen: boolean
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/api-parity/cases.json'), 'utf8')
) as {
  upstreamCommit: string
  header_bytes_only: Record<
    'session_id' | 'session_key',
    {
      sent: string
      status: number
      echoedSessionId: string | null
      echoedSessionKey: string | null
      storedIn: string[]
    }
  >
  header_bytes: {
    sentSessionId: string
    sentSessionKey: string
    status: number
    echoedSessionId: string
    echoedSessionKey: string
  }
  runs_items: Record<string, { status: number; error?: string }>
  responses_items: Record<string, { status: number; error?: string }>
  rag: Array<{ query: string; source: string; status: number; reply: string; session: string; providerGot: Said[] }>
  chained: Array<{ input: unknown; status: number; reply: string; providerGot: Said[] }>
  system_changes: ChatTurn[]
  window: ChatTurn[]
  malformed: Record<string, { status: number; error: string }>
}
/** Upstream's provider call as `role:text` lines, its replies replaced by the ones this server's provider gave. */
const asOurs = (said: Said, replies: Array<[string, string]>) =>
  said.map(([role, text]) => `${role}:${replies.reduce((t, [theirs, ours]) => t.split(theirs).join(ours), text)}`)

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
    const g = golden.header_bytes
    const sent = Buffer.from(
      `X-Hermes-Session-Id: ${g.sentSessionId}\r\nX-Hermes-Session-Key: ${g.sentSessionKey}\r\n`,
      'latin1'
    )
    const r = await rawChat(sent, 'odd bytes')
    expect(r.status).toBe(g.status)
    expect(headerOf(r.head, 'x-hermes-session-id')).toBe(g.echoedSessionId)
    expect(headerOf(r.head, 'x-hermes-session-key')).toBe(g.echoedSessionKey)
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

describe('session headers made only of bytes that are not UTF-8', () => {
  // Upstream answers 200: an id made of them runs under a name its answer cannot carry (an empty X-Hermes-Session-Id)
  // and is stored nowhere; a key made of them scopes memory by text the answer echoes empty. Read as no header here,
  // the turn silently landed in the derived session (or unscoped memory): it is refused, and nothing runs.
  it('are refused with 400 before any turn runs', async () => {
    const g = golden.header_bytes_only
    expect([g.session_id.status, g.session_id.echoedSessionId, g.session_id.storedIn]).toEqual([200, '', []])
    expect([g.session_key.status, g.session_key.echoedSessionKey]).toEqual([200, ''])
    const before = provider.requests.length
    for (const [name, header, words] of [
      ['X-Hermes-Session-Id', g.session_id.sent, 'Invalid session ID'],
      ['X-Hermes-Session-Key', g.session_key.sent, 'Invalid session key']
    ] as const) {
      const r = await rawChat(Buffer.from(`${name}: ${header}\r\n`, 'latin1'), `only odd bytes in ${name}`)
      expect(r.status, name).toBe(400)
      // (the body may come in chunked framing)
      expect(JSON.parse(/\{.*\}/s.exec(r.body)![0]).error.message).toBe(`${words}: ${name} holds no UTF-8 text`)
    }
    expect(provider.requests.length).toBe(before)
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

  // Upstream's /v1/runs takes the first two (202) and crashes on a bare string (500); its /v1/responses takes all three.
  // Both refuse outputs of function calls with no message after them ("No user message found in input"): here both
  // answer them (the turn above; alone and unchained, an output names no call and is refused as OpenAI refuses it).
  it('items that are no messages, items without a role and bare strings, as /v1/responses reads them', async () => {
    const items: Record<string, unknown[]> = {
      replayed_tool_items: [
        { role: 'user', content: 'look it up' },
        { type: 'function_call', call_id: 'call_7', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_7', output: 'found' },
        { role: 'user', content: 'and what did it find?' }
      ],
      item_without_role: [{ content: 'an item with no role' }],
      bare_string: ['a bare string']
    }
    for (const [name, input] of Object.entries(items)) {
      expect(golden.responses_items[name]!.status, name).toBe(200)
      const r = await run({ input })
      expect(r.run?.status, name).toBe('completed')
      if (golden.runs_items[name]!.status === 202) expect(r.status, name).toBe(202)
    }
    expect(golden.runs_items.bare_string!.status).toBe(500)
    // replayed tool items are left out; the turn reads the messages
    const replayed = provider.requests.findLast((q) => lastUser(q).endsWith('and what did it find?'))!
    expect(wire(replayed)).toEqual(['user:look it up\n\nand what did it find?'])
    for (const name of ['call_output_alone', 'call_and_output_last'])
      for (const route of ['runs_items', 'responses_items'] as const)
        expect(golden[route][name], `${route} ${name}`).toEqual({
          status: 400,
          error: 'No user message found in input'
        })
  })
})

describe("Open WebUI's retrieval (RAG) requests", () => {
  // Open WebUI's default: the request that retrieved sources carries them in its last user message, its RAG template
  // (task, rules, the sources in <source> tags, the query) put before what the user typed; later requests show that
  // message as typed. It also sends `files`, `metadata` and `user`, which both servers leave alone. Upstream keys the
  // first request's session on the decorated message and every later one on the typed one: two sessions, the second
  // holding the rest of the conversation. Here the conversation is recognised by its history (conversation.ts): the
  // stored first message is the decorated one, sent back as typed, so every turn stays in the first turn's session.
  const extra = {
    files: [{ type: 'file', id: 'f-1', name: 'handbook.pdf', status: 'uploaded' }],
    metadata: { chat_id: 'chat-1', message_id: 'm-1', features: { web_search: false } },
    user: 'u-1'
  }

  it('reaches the model as upstream’s does on every turn, and all of them stay in one session', async () => {
    const system = { role: 'system' as const, content: 'You are a helpful assistant.' }
    const history: OpenAI.ChatCompletionMessageParam[] = []
    const sessions: string[] = []
    const replies: Array<[string, string]> = []
    for (const turn of golden.rag) {
      // The decorated message as upstream's provider got it is the one sent (upstream passes it on unchanged).
      const decorated = turn.providerGot[0]!.at(-1)![1]
      expect(decorated.endsWith(`\n${turn.query}`) && decorated.includes(turn.source)).toBe(true)
      const { data, response } = await client.chat.completions
        .create({
          model: 'hermes-agent',
          stream: true,
          messages: [system, ...history, { role: 'user', content: decorated }],
          ...extra
        } as never)
        .withResponse()
      let reply = ''
      for await (const c of data as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>)
        reply += c.choices[0]?.delta?.content ?? ''
      expect(response.status).toBe(turn.status)
      sessions.push(response.headers.get('x-hermes-session-id')!)
      replies.push([turn.reply, reply])
      expect(wire(provider.requests.at(-1)!)).toEqual(asOurs(turn.providerGot[0]!, replies))
      history.push({ role: 'user', content: turn.query }, { role: 'assistant', content: reply })
    }
    // Upstream split the conversation in two; here it is one session holding each turn as it was sent.
    expect(golden.rag.map((t) => t.session)).toEqual(['new', 'new', 'same as turn 2'])
    expect(new Set(sessions).size).toBe(1)
    expect(rowsOf(sessions[0]!).filter((r) => r.startsWith('user:'))).toEqual(
      golden.rag.map((t) => `user:${t.providerGot[0]!.at(-1)![1]}`)
    )
  })
})

describe('chat UIs whose resent history upstream takes for a new conversation', () => {
  // Upstream keys a conversation on its system message and first user message: a system message that changes every
  // turn (Open WebUI's date and user context) or a client that drops the oldest messages (its context window) gets a
  // session per turn there. Here each conversation stays one session, and the model reads what upstream's does.
  const replay = async (turns: ChatTurn[]) => {
    const replies = new Map<string, string>()
    const sessions: string[] = []
    for (const turn of turns) {
      const messages = turn.messages.map((m) =>
        m.role === 'assistant' ? { ...m, content: replies.get(m.content) ?? m.content } : m
      )
      const { data, response } = await client.chat.completions
        .create({ model: 'hermes-agent', messages })
        .withResponse()
      expect(response.status).toBe(turn.status)
      const system = messages.find((m) => m.role === 'system')!.content
      const sent = (provider.requests.at(-1)!.body?.messages ?? []) as Msg[]
      expect(sent.some((m) => m.role === 'system' && String(m.content).includes(system))).toBe(turn.systemSeen)
      expect(wire(provider.requests.at(-1)!)).toEqual(
        messages.filter((m) => m.role !== 'system').map((m) => `${m.role}:${m.content}`)
      )
      replies.set(turn.reply, data.choices[0]!.message.content!)
      sessions.push(response.headers.get('x-hermes-session-id')!)
    }
    return sessions
  }

  it('a system message that changes every turn', async () => {
    expect(golden.system_changes.map((t) => t.session)).toEqual(['new', 'new', 'new'])
    expect(new Set(await replay(golden.system_changes)).size).toBe(1)
  })

  it('a history whose oldest messages the client dropped', async () => {
    expect(golden.window.map((t) => t.session)).toEqual(['new', 'same as turn 1', 'new', 'new'])
    expect(new Set(await replay(golden.window)).size).toBe(1)
  })
})

describe('a chained Response whose input holds more than one message', () => {
  // Upstream's model reads the chain's history, then every input item before the last, then the last; here the items
  // before the last were dropped (the chained session was read, and the request's items only seed a new session).
  // Upstream's response store keeps a chain's first message twice (run together on the wire), and the whole history
  // twice one response later: those copies are its own defect, not followed here.
  it('reads them after the chain, and they stay in the chain for the next response', async () => {
    const [opener, multi, next] = golden.chained as [
      (typeof golden.chained)[0] & { input: string },
      (typeof golden.chained)[0] & { input: Array<{ role: 'user' | 'assistant'; content: string }> },
      (typeof golden.chained)[0] & { input: string }
    ]
    const first = await client.responses.create({ model: 'hermes-agent', input: opener.input })
    expect(wire(provider.requests.at(-1)!)).toEqual(asOurs(opener.providerGot[0]!, []))
    const second = await client.responses.create({
      model: 'hermes-agent',
      previous_response_id: first.id,
      input: multi.input
    })
    const replies: Array<[string, string]> = [
      [opener.reply, first.output_text],
      [multi.reply, second.output_text]
    ]
    const got = wire(provider.requests.at(-1)!)
    expect(got[0]).toBe(`user:${opener.input}`)
    expect(got.slice(1)).toEqual(asOurs(multi.providerGot[0]!, replies).slice(1))
    await client.responses.create({ model: 'hermes-agent', previous_response_id: second.id, input: next.input })
    const theirs = asOurs(next.providerGot[0]!, replies)
    expect(wire(provider.requests.at(-1)!)).toEqual([...got, `assistant:${second.output_text}`, `user:${next.input}`])
    expect(theirs.slice(-5)).toEqual([...got.slice(-3), `assistant:${second.output_text}`, `user:${next.input}`])
  })
})

describe('a body that is not JSON', () => {
  it('is refused on each turn route with upstream’s status and words', async () => {
    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }
    for (const [route, want] of Object.entries(golden.malformed)) {
      const r = await fetch(`${server.url}/v1/${route}`, { method: 'POST', headers: auth, body: '{not json' })
      const body = (await r.json()) as { error: { message: string } }
      expect({ status: r.status, error: body.error.message }, route).toEqual(want)
    }
  })
})

describe('which session each request runs in (test/fixtures/upstream/api-session-choice)', () => {
  type Step = {
    name: string
    path: string
    headers: Record<string, string>
    body: Record<string, unknown>
    status: number
    session?: string
    error?: string
  }
  const choice = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/api-session-choice/cases.json'), 'utf8')
  ) as { givenSession: string; steps: Step[] }
  // Deliberate difference: the same first chat message sent again with no history (a chat UI's Regenerate of it) runs
  // in a branch of that conversation's session here (conversation.ts), never as a second answer appended to it.
  const BRANCHES = new Set(['chat_again', 'chat_stream'])

  it('matches upstream: a new session per unchained Response or run, a chain stays in its own', async () => {
    const UPSTREAM_REPLY = 'Hello from the agent.'
    const respIds = new Map<string, string>()
    const sids = new Map<string, string>()
    const replies = new Map<string, string>()
    const firstOf = new Map<string, string>()
    const [wanted, answered] = [[] as string[], [] as string[]]
    const fill = (v: unknown, reply: string): unknown =>
      typeof v === 'string'
        ? v
            .replace(/<resp:(\w+)>/, (_, n: string) => respIds.get(n)!)
            .replace(/<sid:(\w+)>/, (_, n: string) => sids.get(n)!)
            .replace(UPSTREAM_REPLY, reply)
        : Array.isArray(v)
          ? v.map((x) => fill(x, reply))
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, reply)]))
            : v
    for (const step of choice.steps) {
      const chat = step.path === '/v1/chat/completions'
      const body = fill(step.body, replies.get(chat ? 'chat_first' : 'responses_fresh') ?? '') as never
      const headers = fill(step.headers, '') as Record<string, string>
      let status: number
      let sid: string | undefined
      let error: string | undefined
      if (step.path === '/v1/responses') {
        const sent = await client.responses
          .create(body, { headers })
          .withResponse()
          .catch((e: InstanceType<typeof OpenAI.APIError>) => e)
        if (sent instanceof OpenAI.APIError) {
          ;[status, error] = [sent.status!, (sent.error as { message: string }).message]
        } else {
          status = sent.response.status
          sid = sent.response.headers.get('x-hermes-session-id')!
          const data = sent.data as unknown
          // a streamed Response: its events, the last one holding the finished response
          const done = (data as { id?: string }).id
            ? (data as OpenAI.Responses.Response)
            : await (async () => {
                let last: OpenAI.Responses.Response | undefined
                for await (const e of data as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>)
                  if (e.type === 'response.completed') last = e.response
                return last!
              })()
          respIds.set(step.name, done.id)
          replies.set(step.name, done.output_text)
        }
      } else if (chat) {
        const sent = await client.chat.completions.create(body, { headers }).withResponse()
        status = sent.response.status
        sid = sent.response.headers.get('x-hermes-session-id')!
        const data = sent.data as unknown
        let text = ''
        if ((data as { choices?: unknown }).choices)
          text = (data as OpenAI.Chat.ChatCompletion).choices[0]!.message.content!
        else
          for await (const c of data as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>)
            text += c.choices[0]?.delta.content ?? ''
        replies.set(step.name, text)
      } else {
        const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }
        const r = await fetch(`${server.url}${step.path}`, {
          method: 'POST',
          headers: { ...auth, ...headers },
          body: JSON.stringify(body)
        })
        status = r.status
        const { run_id } = (await r.json()) as { run_id: string }
        await (await fetch(`${server.url}/v1/runs/${run_id}/events`, { headers: auth })).text()
        sid = (
          (await (await fetch(`${server.url}/v1/runs/${run_id}`, { headers: auth })).json()) as { session_id: string }
        ).session_id
      }
      const got: Partial<Step> = { status }
      if (error) got.error = error.replace(/resp_\w+/, '<id:resp>')
      if (sid) {
        sids.set(step.name, sid)
        // a new session of upstream's has no parent: a branch of another session is no new conversation
        const parent = host.stores.get('default').getSession(sid)?.parentSessionId
        got.session = firstOf.has(sid)
          ? `same as ${firstOf.get(sid)}`
          : parent
            ? `a branch of ${firstOf.get(parent)}`
            : 'new'
        if (!firstOf.has(sid)) firstOf.set(sid, step.name)
      }
      const want = { status: step.status, session: step.session, error: step.error }
      // upstream's "same as chat_first" is, here, a new session branched from it
      const branch = BRANCHES.has(step.name) && want.session === 'same as chat_first'
      wanted.push(`${step.name}: ${JSON.stringify(branch ? { ...want, session: 'a branch of chat_first' } : want)}`)
      answered.push(`${step.name}: ${JSON.stringify({ status: got.status, session: got.session, error: got.error })}`)
    }
    expect(answered).toEqual(wanted)
    // the id a client named in X-Hermes-Session-Id or a run's session_id is the session itself, as upstream's
    expect(sids.get('chat_session_header_given')).toBe(choice.givenSession)
  })
})
