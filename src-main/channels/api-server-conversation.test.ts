// Conversations without a session header on the API server, driven by the official `openai` SDK against a scripted
// provider whose every answer is numbered: each request runs the agent (a stored reply is never handed to another
// request, caller or Regenerate), and a resent history stays one session however a chat UI shows it back (streamed
// text before a tool call, trimmed, reasoning blocks taken out). Open WebUI's background task requests (title, tags,
// follow-ups, search queries) are answered as any request but make no conversation of their own; upstream's own
// SessionDB then reads the home. Also the protocol odds a client may send: HEAD, a gzip body, the SDK's
// `conversation: {id}` form, and a streamed Response the caller hangs up on.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider } from '../agent/scripted'
import { type Host } from '../host'
import { apiConversations } from '../host/app-channels'
import { sqliteOf } from '../store/session-store'
import { startApiServer, type ApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'

const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
/** What upstream keeps when a streaming client hangs up (scripts/golden/api_stream_abort.py). */
const abortGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/api-stream-abort/cases.json'), 'utf8')
) as {
  chat: { rows: Array<[string, string, string | null]> }
  chat_again: { providerGot: Array<Array<[string, string]>>; rows: Array<[string, string, string | null]> }
  chat_ui: { next: { session: string; rows: Array<[string, string, string | null]> } }
  responses: { getDuring: { status: number; response: { status: string; output: unknown[] } } }
}
/** What upstream does with a model writing its reasoning inline (scripts/golden/inline_think.py). */
type ThinkRow = [string, string, string | null, string | null, number]
const thinkGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/inline-think/cases.json'), 'utf8')
) as {
  replies: Record<string, string[]>
  chat_stream: { clientDeltas: string[]; rows: ThinkRow[] }
  chat_again: {
    clientDeltas: string[]
    rows: ThinkRow[]
    providerGot: Array<{ messages: Array<Record<string, unknown>> }>
  }
  chat_plain: { reply: { content: string }; rows: ThinkRow[] }
  responses: { output: Array<{ content: Array<{ text: string }> }>; rows: ThinkRow[] }
  responses_stream: { events: Array<[string, unknown]> }
  tool_turn: { rows: ThinkRow[] }
  unclosed: { clientDeltas: string[]; rows: ThinkRow[] }
}
/** What upstream does with replies that have nothing to show (scripts/golden/empty_replies.py). */
type EmptyRow = [string, string | null, string | null, string | null, string | null, number]
const emptyGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/empty-replies/cases.json'), 'utf8')
) as {
  cases: Record<
    string,
    {
      streamed: { clientDeltas: string[]; providerGot: Array<Array<Record<string, unknown>>>; rows: EmptyRow[] }
      plain: { status: number; content: string; finishReason: string; requests: number; rows: EmptyRow[] }
    }
  >
  blankResponsesStream: { deltas: string[]; completedText: string }
}
const PY = '/usr/bin/python3'
const withUpstream = existsSync(PY) && existsSync(join(UPSTREAM, 'hermes_state.py'))

let root: string
let host: Host
let provider: ScriptedProvider
let server: ApiServer
let client: OpenAI
const KEY = 'hk_conversation_test_key'
let calls = 0
const stalled = new Set<string>()

type Msg = { role: string; content: unknown }
const lastUser = (req: RecordedRequest): string => {
  const msgs = (req.body?.messages ?? []) as Msg[]
  const u = [...msgs].reverse().find((m) => m.role === 'user')
  return typeof u?.content === 'string' ? u.content : JSON.stringify(u?.content ?? '')
}

beforeAll(async () => {
  provider = await startScriptedProvider({
    handler: (req) => {
      const n = ++calls
      const msgs = (req.body?.messages ?? []) as Msg[]
      const text = lastUser(req)
      // a model writing its reasoning inline, streamed in the golden's deltas (a tag cut across two)
      const firstUser = msgs.find((m) => m.role === 'user')?.content
      if (typeof firstUser === 'string' && firstUser.startsWith('INLINE ')) {
        if (msgs.at(-1)?.role === 'tool') return { deltas: thinkGolden.replies.after_tool, text: 'x' }
        const key = text.split(' ')[1]!
        const deltas = thinkGolden.replies[key]!
        const toolCalls = key === 'tool' ? [{ name: 'no_such_tool', arguments: {} }] : undefined
        return { deltas, text: deltas.join(''), toolCalls }
      }
      // a model with nothing to show, as the golden's provider answers it
      if (typeof firstUser === 'string' && firstUser.startsWith('case ')) {
        const kind = firstUser.split(' ')[1]
        const asked = provider.requests.filter((r) => (r.body?.messages as Msg[])?.some((m) => m.content === firstUser))
        if (kind!.startsWith('after_tool') && asked.length <= 1)
          return { toolCalls: [{ name: 'no_such_tool', arguments: {} }] }
        if (kind === 'think' || kind === 'after_tool_think')
          return { deltas: ['<think>all reasoning, ', 'no answer</think>'], text: 'x' }
        if (kind === 'field') return { text: '', reasoning: 'thinking hard' }
        if (kind === 'blank' || kind === 'after_tool' || asked.length <= 1) return { text: '' }
        return { text: 'Recovered.' }
      }
      if (text.startsWith('### Task:')) return { text: `{ "title": "Task answer ${n}" }` }
      if (msgs.at(-1)?.role === 'tool') return { text: `checked, answer ${n}` }
      // (the last paragraph: a user message left unanswered runs together with the next one on the wire)
      if (text.split('\n\n').at(-1)!.includes('REFUSE')) return { error: 400, errorMessage: 'refused by the provider' }
      if (text.includes('REASON')) return { text: `<think>private musing ${n}</think>The answer ${n}.` }
      if (text.includes('TOOL')) return { text: 'Let me check. ', toolCalls: [{ name: 'no_such_tool', arguments: {} }] }
      // The first request of a `stall` text is held open until it is stopped; the next one answers.
      if (text.startsWith('stall') && !stalled.has(text)) {
        stalled.add(text)
        return { text: `partial ${n} `, stall: true }
      }
      return { text: `answer ${n} to ${text}` }
    }
  })
  ;({ root, host } = await apiHostHome({ prefix: 'cad-api-conv-', baseUrl: provider.baseUrl, key: KEY }))
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

const chat = (messages: OpenAI.ChatCompletionMessageParam[], headers: Record<string, string> = {}) =>
  client.chat.completions.create({ model: 'hermes-agent', messages }, { headers }).withResponse()
const sidOf = (r: { response: Response }) => r.response.headers.get('x-hermes-session-id')!
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }

async function streamChat(messages: OpenAI.ChatCompletionMessageParam[]) {
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'hermes-agent', messages, stream: true })
    .withResponse()
  let text = ''
  for await (const chunk of stream) text += chunk.choices?.[0]?.delta?.content ?? ''
  return { text, sid: response.headers.get('x-hermes-session-id')! }
}

async function until<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await probe()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('every request runs the agent: no stored reply is handed to another request', () => {
  it('two callers (different X-Hermes-Session-Key) sending the same first message each get their own run', async () => {
    const messages = [{ role: 'user' as const, content: 'what is my secret?' }]
    const before = provider.requests.length
    const a = await chat(messages, { 'X-Hermes-Session-Key': 'caller-a' })
    const b = await chat(messages, { 'X-Hermes-Session-Key': 'caller-b' })
    expect(provider.requests.length - before).toBe(2)
    expect(b.data.choices[0]!.message.content).not.toBe(a.data.choices[0]!.message.content)
    expect(b.data.usage!.total_tokens).toBeGreaterThan(0)
    // The second is not recorded in the first caller's session.
    expect(sidOf(b)).not.toBe(sidOf(a))
  })

  it("a chat UI's Regenerate (the same history again) gets a new answer", async () => {
    const messages = [{ role: 'user' as const, content: 'tell me a joke' }]
    const a = await chat(messages)
    const b = await chat(messages)
    expect(b.data.choices[0]!.message.content).not.toBe(a.data.choices[0]!.message.content)
    expect(b.data.choices[0]!.finish_reason).toBe('stop')
  })

  it('stateless Responses (store: false) and Runs with the same input each run', async () => {
    const before = provider.requests.length
    const a = await client.responses.create({ model: 'hermes-agent', input: 'stateless hello', store: false })
    const b = await client.responses.create({ model: 'hermes-agent', input: 'stateless hello', store: false })
    expect(b.output_text).not.toBe(a.output_text)
    const outputs: string[] = []
    for (let i = 0; i < 2; i++) {
      const { run_id } = await (
        await fetch(`${server.url}/v1/runs`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ input: 'run hi' })
        })
      ).json()
      await (await fetch(`${server.url}/v1/runs/${run_id}/events`, { headers: auth })).text()
      outputs.push((await (await fetch(`${server.url}/v1/runs/${run_id}`, { headers: auth })).json()).output)
    }
    expect(outputs[1]).not.toBe(outputs[0])
    expect(provider.requests.length - before).toBe(4)
  })

  it("a Stop keeps the rows upstream keeps, and the next turn is given them (api-stream-abort's chat)", async () => {
    // Upstream (scripts/golden/api_stream_abort.py): the user's message, then the reply streamed until the stop,
    // trimmed; the chat UI's next message in that session is answered after both.
    const sid = 'stopped-chat'
    const controller = new AbortController()
    const ask = 'stall a story to stop'
    const stream = await client.chat.completions.create(
      { model: 'hermes-agent', messages: [{ role: 'user', content: ask }], stream: true },
      { signal: controller.signal, headers: { 'X-Hermes-Session-Id': sid } }
    )
    let got = ''
    for await (const chunk of stream) if ((got += chunk.choices[0]?.delta?.content ?? '')) break
    controller.abort()
    const rows = () =>
      db()
        .prepare<[string], { role: string; content: string }>(
          'SELECT role, content FROM messages WHERE session_id = ? ORDER BY id'
        )
        .all(sid)
        .map((r) => [r.role, r.content])
    const kept = await until(async () => (rows().length === 2 ? rows() : undefined))
    expect(kept.map((r) => r[0])).toEqual(abortGolden.chat.rows.map((r) => r[0]))
    // (the provider streamed "partial <n> " before it stalled; the client read the first piece of it)
    expect(kept[0]).toEqual(['user', ask])
    expect(kept[1]![1]).toMatch(/^partial \d+$/)
    expect(kept[1]![1]!.startsWith(got)).toBe(true)
    const before = provider.requests.length
    await client.chat.completions.create(
      {
        model: 'hermes-agent',
        messages: [
          { role: 'user', content: ask },
          { role: 'assistant', content: got },
          { role: 'user', content: 'go on' }
        ]
      },
      { headers: { 'X-Hermes-Session-Id': sid } }
    )
    const given = (provider.requests[before]!.body.messages as Msg[])
      .filter((m) => m.role !== 'system')
      .map((m) => [m.role, m.content])
    expect(given.map((m) => m[0])).toEqual(abortGolden.chat_again.providerGot[0]!.map((m) => m[0]))
    expect(given).toEqual([...kept, ['user', 'go on']])
    expect(rows().map((r) => r[0])).toEqual(abortGolden.chat_again.rows.map((r) => r[0]))
  })

  it("a chat UI's Stop, then its next message with the text it got: the same session (api-stream-abort's chat_ui)", async () => {
    // Upstream keys the conversation on its opening, so the resend after a Stop continues its session, though the
    // client got only a beginning of the stored reply; here it used to look like an edited reply and branch.
    const opening = [
      { role: 'system' as const, content: "You are a chat UI's assistant." },
      { role: 'user' as const, content: 'stall about the sea' }
    ]
    const controller = new AbortController()
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'hermes-agent', messages: opening, stream: true }, { signal: controller.signal })
      .withResponse()
    const sid = response.headers.get('x-hermes-session-id')!
    let got = ''
    for await (const chunk of stream) if ((got += chunk.choices[0]?.delta?.content ?? '')) break
    controller.abort()
    const roles = (s: string) =>
      db()
        .prepare<[string], { role: string }>('SELECT role FROM messages WHERE session_id = ? ORDER BY id')
        .all(s)
        .map((r) => r.role)
    await until(async () => (roles(sid).length === 2 ? true : undefined))
    const again = await client.chat.completions
      .create({
        model: 'hermes-agent',
        messages: [...opening, { role: 'assistant', content: got }, { role: 'user', content: 'go on' }]
      })
      .withResponse()
    expect(abortGolden.chat_ui.next.session).toBe('same')
    expect(sidOf(again)).toBe(sid)
    expect(roles(sid)).toEqual(abortGolden.chat_ui.next.rows.map((r) => r[0]))
    // An assistant message that is not a beginning of the stopped reply is an edit: a branch, as before.
    const edited = await chat([
      ...opening,
      { role: 'assistant', content: 'not what it said' },
      { role: 'user', content: 'hm' }
    ])
    expect(sidOf(edited)).not.toBe(sid)
  })

  it('a Stop (the client hangs up a stream) then the same request runs anew, finished with usage', async () => {
    const messages = [{ role: 'user' as const, content: 'stall then stop' }]
    const controller = new AbortController()
    const stream = await client.chat.completions.create(
      { model: 'hermes-agent', messages, stream: true },
      { signal: controller.signal }
    )
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) break
    controller.abort()
    const before = provider.requests.length
    const again = await client.chat.completions.create({ model: 'hermes-agent', messages })
    // A new run, finished: not the cut-off text of the stopped one handed back as if it were.
    expect(provider.requests.length - before).toBe(1)
    expect(again.choices[0]!.message.content).toMatch(/^answer \d+ to stall then stop$/)
    expect(again.choices[0]!.finish_reason).toBe('stop')
    expect(again.usage!.total_tokens).toBeGreaterThan(0)
  })
})

describe('Responses: function_call items a client answers by call_id', () => {
  // A client that takes the listed calls for its own to run sends back one function_call_output per call_id, chained by
  // previous_response_id with no new message. Upstream reads each as an empty user message and answers 400.
  it('answers the outputs sent back for the calls the previous response listed, in its session', async () => {
    const { data: r1, response } = await client.responses
      .create({ model: 'hermes-agent', input: 'responses TOOL call' })
      .withResponse()
    const calls = r1.output.filter((o) => o.type === 'function_call')
    expect(calls).toHaveLength(1)
    const before = provider.requests.length
    const { data: r2, response: second } = await client.responses
      .create({
        model: 'hermes-agent',
        previous_response_id: r1.id,
        input: calls.map((c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: 'ran it: 42' }))
      })
      .withResponse()
    expect(r2.status).toBe('completed')
    expect(second.headers.get('x-hermes-session-id')).toBe(response.headers.get('x-hermes-session-id'))
    const sent = provider.requests.slice(before).map(lastUser)
    expect(sent[0]).toBe(`Output of function call ${calls[0]!.call_id} (no_such_tool):\nran it: 42`)
    // Output given as parts, and a call_id the chain never listed.
    const r3 = await client.responses.create({
      model: 'hermes-agent',
      previous_response_id: r1.id,
      input: [
        { type: 'function_call_output', call_id: calls[0]!.call_id, output: [{ type: 'input_text', text: 'parted' }] }
      ]
    })
    expect(r3.output_text).toContain('parted')
    const wrong = await client.responses
      .create({
        model: 'hermes-agent',
        previous_response_id: r1.id,
        input: [{ type: 'function_call_output', call_id: 'call_made_up', output: 'x' }]
      })
      .catch((e: unknown) => e)
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError)
    expect((wrong as Error).message).toContain('call_made_up')
  })
})

describe('a resent history stays one session', () => {
  // SillyTavern's "Continue": the request ends with the assistant's unfinished text. Upstream runs it as the user's
  // message of that turn (golden chat_continue), in the conversation's session, and stores it as the user's; the next
  // resend shows the continued reply as one assistant message (the text, then its continuation).
  const turnsOf = (sid: string) =>
    host.stores
      .get('default')
      .getMessagesAsConversation(sid)
      .map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : ''}`)

  it('a Continue of the stored answer stays in its session, and so does the resend that follows', async () => {
    const a = await chat([{ role: 'user', content: 'story time' }])
    const answer = a.data.choices[0]!.message.content!
    const b = await chat([
      { role: 'user', content: 'story time' },
      { role: 'assistant', content: answer }
    ])
    const more = b.data.choices[0]!.message.content!
    // The model reads the request (upstream's): the question, then the unfinished reply as the user's, run together.
    expect(more).toBe(`answer ${calls} to story time\n\n${answer}`)
    expect(sidOf(b)).toBe(sidOf(a))
    expect(turnsOf(sidOf(a))).toEqual(['user:story time', `assistant:${answer}`, `user:${answer}`, `assistant:${more}`])
    // Continued twice, then the next question: one session throughout.
    const c = await chat([
      { role: 'user', content: 'story time' },
      { role: 'assistant', content: `${answer} ${more}` }
    ])
    expect(sidOf(c)).toBe(sidOf(a))
    const d = await chat([
      { role: 'user', content: 'story time' },
      { role: 'assistant', content: `${answer} ${more}${c.data.choices[0]!.message.content!}` },
      { role: 'user', content: 'the end?' }
    ])
    expect(sidOf(d)).toBe(sidOf(a))
    expect(turnsOf(sidOf(a)).slice(-2)).toEqual(['user:the end?', `assistant:answer ${calls} to the end?`])
  })

  it("a Continue on the first request (a prefilled reply, then SillyTavern's nudge) and its resend", async () => {
    const nudge = { role: 'system', content: '[Continue your last message without repeating its original content.]' }
    const a = await chat([
      { role: 'system', content: 'You are Seraphina.' },
      { role: 'user', content: 'prefill me' },
      { role: 'assistant', content: 'Sure, here' },
      nudge as OpenAI.ChatCompletionMessageParam
    ])
    const more = a.data.choices[0]!.message.content!
    expect(turnsOf(sidOf(a))).toEqual(['user:prefill me', 'user:Sure, here', `assistant:${more}`])
    const b = await chat([
      { role: 'system', content: 'You are Seraphina.' },
      { role: 'user', content: 'prefill me' },
      { role: 'assistant', content: `Sure, here${more}` },
      nudge as OpenAI.ChatCompletionMessageParam,
      { role: 'user', content: 'next' }
    ])
    expect(sidOf(b)).toBe(sidOf(a))
  })

  it('a failed turn shown as an empty reply, then the next message: the same session, as upstream keeps it', async () => {
    for (const empty of ['', null]) {
      const first = `REFUSE this one (${String(empty)})`
      const failed = await chat([{ role: 'user', content: first }]).catch((e: unknown) => e)
      expect(failed).toBeInstanceOf(OpenAI.APIError)
      const sid = (failed as InstanceType<typeof OpenAI.APIError>).headers?.get('x-hermes-session-id')
      expect(sid).toBeTruthy()
      const next = await chat([
        { role: 'user', content: first },
        { role: 'assistant', content: empty },
        { role: 'user', content: 'after the failure' }
      ])
      expect(sidOf(next)).toBe(sid)
      expect(turnsOf(sid!)).toEqual([
        `user:${first}`,
        'user:after the failure',
        `assistant:${next.data.choices[0]!.message.content!}`
      ])
    }
  })

  it('a Continue of an edited answer branches, as any edit does', async () => {
    const a = await chat([{ role: 'user', content: 'edit then continue' }])
    const b = await chat([
      { role: 'user', content: 'edit then continue' },
      { role: 'assistant', content: 'Something I wrote myself' }
    ])
    expect(sidOf(b)).not.toBe(sidOf(a))
    expect(turnsOf(sidOf(b))).toEqual([
      'user:edit then continue',
      'user:Something I wrote myself',
      `assistant:${b.data.choices[0]!.message.content!}`
    ])
  })

  it('a streamed tool turn with text before the tool call, sent back as the stream showed it', async () => {
    const history: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'please TOOL something' }]
    const first = await streamChat(history)
    expect(first.text).toMatch(/^Let me check\. \n\nchecked, answer \d+$/)
    history.push({ role: 'assistant', content: first.text }, { role: 'user', content: 'and then?' })
    const second = await streamChat(history)
    expect(second.sid).toBe(first.sid)
  })

  it('the same tool turn not streamed: its final reply sent back', async () => {
    const a = await chat([{ role: 'user', content: 'json TOOL turn' }])
    const reply = a.data.choices[0]!.message.content!
    expect(reply).toMatch(/^checked, answer \d+$/)
    const b = await chat([
      { role: 'user', content: 'json TOOL turn' },
      { role: 'assistant', content: reply },
      { role: 'user', content: 'next' }
    ])
    expect(sidOf(b)).toBe(sidOf(a))
  })

  it('trimmed or padded text and reasoning blocks taken out or put in are the same turn', async () => {
    // (The first user message is kept exact: the session id is upstream's hash of it.)
    const a = await chat([{ role: 'user', content: 'spaced question' }])
    const reply = a.data.choices[0]!.message.content!
    const b = await chat([
      { role: 'user', content: 'spaced question' },
      { role: 'assistant', content: `<think>mulling it over</think>\n${reply}\n\n` },
      { role: 'user', content: '  follow-up  ' }
    ])
    expect(sidOf(b)).toBe(sidOf(a))
    const c = await chat([
      { role: 'user', content: 'spaced question' },
      { role: 'assistant', content: ` ${reply}` },
      { role: 'user', content: 'follow-up\n' },
      { role: 'assistant', content: `${b.data.choices[0]!.message.content!}\n` },
      { role: 'user', content: 'third' }
    ])
    expect(sidOf(c)).toBe(sidOf(a))
  })

  it('a reply with a reasoning block, sent back without it', async () => {
    const a = await streamChat([{ role: 'user', content: 'REASON please' }])
    const shown = a.text.replace(/<think>[\s\S]*?<\/think>/, '')
    const b = await streamChat([
      { role: 'user', content: 'REASON please' },
      { role: 'assistant', content: shown },
      { role: 'user', content: 'ok' }
    ])
    expect(b.sid).toBe(a.sid)
  })
})

describe('a model writing its reasoning inline (<think>…</think> in the content), as upstream (golden inline-think)', () => {
  const rowsOf = (sid: string): ThinkRow[] =>
    db()
      .prepare<[string], { role: string; content: string; reasoning: string | null; rc: string | null; calls: number }>(
        'SELECT role, content, reasoning, reasoning_content AS rc, tool_calls IS NOT NULL AS calls FROM messages WHERE session_id = ? ORDER BY id'
      )
      .all(sid)
      .map((r) => [r.role, r.content, r.reasoning, r.rc, r.calls])
  /** The golden's rows with our user text in place of upstream's (its tool result is its own tool's). */
  const expected = (rows: ThinkRow[], asks: string[]) => {
    let n = 0
    return rows.map((r): ThinkRow => (r[0] === 'user' ? ['user', asks[n++]!, null, null, 0] : r))
  }
  async function deltasOf(messages: OpenAI.ChatCompletionMessageParam[], sid: string) {
    const stream = await client.chat.completions.create(
      { model: 'hermes-agent', messages, stream: true },
      { headers: { 'X-Hermes-Session-Id': sid } }
    )
    const got: string[] = []
    for await (const chunk of stream) if (chunk.choices?.[0]?.delta?.content) got.push(chunk.choices[0].delta.content)
    return got
  }

  it('streams only the reply, stores the block as reasoning, and sends the next turn the reply alone', async () => {
    const sid = 'inline-think-chat'
    const ask = 'INLINE sum please'
    const got = await deltasOf([{ role: 'user', content: ask }], sid)
    // no delta carries a tag or a piece of one; the text is upstream's
    expect(got.join('')).toBe(thinkGolden.chat_stream.clientDeltas.join(''))
    expect(got.some((d) => d.includes('<') || d.includes('>'))).toBe(false)
    expect(rowsOf(sid)).toEqual(expected(thinkGolden.chat_stream.rows, [ask]))
    const before = provider.requests.length
    const again = await deltasOf(
      [
        { role: 'user', content: ask },
        { role: 'assistant', content: got.join('') },
        { role: 'user', content: 'INLINE again' }
      ],
      sid
    )
    expect(again.join('')).toBe(thinkGolden.chat_again.clientDeltas.join(''))
    const given = (provider.requests[before]!.body.messages as Array<Record<string, unknown>>).filter(
      (m) => m.role !== 'system'
    )
    const [, upstreamAssistant] = thinkGolden.chat_again.providerGot[0]!.messages
    expect(given[1]).toEqual(upstreamAssistant)
    expect(rowsOf(sid)).toEqual(expected(thinkGolden.chat_again.rows, [ask, 'INLINE again']))
  })

  it('a reply not streamed, and Responses (streamed or not), carry the reply without the block', async () => {
    const plain = await chat([{ role: 'user', content: 'INLINE plain' }], { 'X-Hermes-Session-Id': 'inline-plain' })
    expect(plain.data.choices[0]!.message.content).toBe(thinkGolden.chat_plain.reply.content)
    expect(rowsOf('inline-plain')).toEqual(expected(thinkGolden.chat_plain.rows, ['INLINE plain']))
    const { data, response } = await client.responses
      .create({ model: 'hermes-agent', input: 'INLINE resp' })
      .withResponse()
    expect(data.output_text).toBe(thinkGolden.responses.output[0]!.content[0]!.text)
    expect(rowsOf(response.headers.get('x-hermes-session-id')!)).toEqual(
      expected(thinkGolden.responses.rows, ['INLINE resp'])
    )
    const stream = await client.responses.create({ model: 'hermes-agent', input: 'INLINE resp streamed', stream: true })
    const deltas: string[] = []
    let done = ''
    for await (const ev of stream) {
      if (ev.type === 'response.output_text.delta') deltas.push(ev.delta)
      if (ev.type === 'response.completed') done = ev.response.output_text
    }
    const upstreamDeltas = thinkGolden.responses_stream.events.filter((e) => e[0] === 'delta').map((e) => e[1])
    expect(deltas.join('')).toBe(upstreamDeltas.join(''))
    expect(done).toBe(upstreamDeltas.join(''))
  })

  it("a tool-call turn's think text is its reasoning, and an unclosed block is never shown or stored", async () => {
    await deltasOf([{ role: 'user', content: 'INLINE tool please' }], 'inline-tool')
    const rows = rowsOf('inline-tool')
    const golden = thinkGolden.tool_turn.rows
    // (the tool's result is our tool's, not upstream's todo)
    expect(rows.map((r) => (r[0] === 'tool' ? r[0] : r))).toEqual(
      expected(golden, ['INLINE tool please']).map((r) => (r[0] === 'tool' ? r[0] : r))
    )
    const got = await deltasOf([{ role: 'user', content: 'INLINE unclosed please' }], 'inline-unclosed')
    expect(got.join('')).toBe(thinkGolden.unclosed.clientDeltas.join(''))
    expect(rowsOf('inline-unclosed')).toEqual(expected(thinkGolden.unclosed.rows, ['INLINE unclosed please']))
  })
})

describe('a reply with nothing to show, as upstream (golden empty-replies)', () => {
  const rowsOf = (sid: string): EmptyRow[] =>
    db()
      .prepare<[string], EmptyRow>(
        'SELECT role, content, reasoning, reasoning_content, finish_reason, tool_calls IS NOT NULL FROM messages WHERE session_id = ? ORDER BY id'
      )
      .raw()
      .all(sid)
      .map((r) => (r[0] === 'tool' ? ['tool', 'RESULT', null, null, null, 0] : r))
  /** Our tool's result is not upstream's, and the nudge after a tool round is said in our own words. */
  const golden = (rows: EmptyRow[]) =>
    rows.map((r): EmptyRow => (r[0] === 'tool' ? ['tool', 'RESULT', null, null, null, 0] : r))
  const shape = (requests: Array<Array<Record<string, unknown>>>) =>
    requests.map((msgs) =>
      msgs.map((m) => ({
        role: m.role,
        content:
          m.role === 'tool'
            ? 'RESULT'
            : m.role === 'user' && m.content !== msgs[0]!.content
              ? 'NUDGE'
              : m.content === null
                ? ''
                : m.content,
        calls: Array.isArray(m.tool_calls) ? m.tool_calls.length : 0
      }))
    )
  const sent = (ask: string) =>
    provider.requests
      .filter((r) => r.body?.stream && (r.body.messages as Msg[]).some((m) => m.content === ask))
      .map((r) => (r.body.messages as Array<Record<string, unknown>>).filter((m) => m.role !== 'system'))
  it.each(Object.keys(emptyGolden.cases))('%s', async (kind) => {
    const want = emptyGolden.cases[kind]!
    const sid = `golden-empty-${kind}`
    const ask = `case ${kind} streamed`
    const stream = await client.chat.completions.create(
      { model: 'hermes-agent', messages: [{ role: 'user', content: ask }], stream: true },
      { headers: { 'X-Hermes-Session-Id': sid } }
    )
    const got: string[] = []
    for await (const chunk of stream) if (chunk.choices?.[0]?.delta?.content) got.push(chunk.choices[0].delta.content)
    expect(got.join('')).toBe(want.streamed.clientDeltas.join(''))
    expect(shape(sent(ask))).toEqual(shape(want.streamed.providerGot))
    expect(rowsOf(sid)).toEqual(golden(want.streamed.rows))
    // Not streamed: the same requests and rows; the reply is upstream's own explanation when there is none (our words).
    const plainAsk = `case ${kind} plain`
    const r = await client.chat.completions.create(
      { model: 'hermes-agent', messages: [{ role: 'user', content: plainAsk }] },
      { headers: { 'X-Hermes-Session-Id': `${sid}-plain` } }
    )
    expect(sent(plainAsk)).toHaveLength(want.plain.requests)
    expect(rowsOf(`${sid}-plain`)).toEqual(golden(want.plain.rows))
    expect(r.choices[0]!.finish_reason).toBe(want.plain.finishReason)
    if (want.plain.content.startsWith('⚠️ No reply:')) expect(r.choices[0]!.message.content).toMatch(/^No reply: /)
    else expect(r.choices[0]!.message.content).toBe(want.plain.content)
  })
})

describe('a streamed Response with no reply', () => {
  it("gets the turn's explanation as its one text delta and its completed text, as upstream's", async () => {
    const deltas: string[] = []
    let completed: string | null = null
    const events = await client.responses.create({ model: 'hermes-agent', stream: true, input: 'case blank responses' })
    for await (const ev of events) {
      if (ev.type === 'response.output_text.delta') deltas.push(ev.delta)
      if (ev.type === 'response.completed') completed = ev.response.output_text
    }
    expect(emptyGolden.blankResponsesStream.deltas).toHaveLength(1)
    expect(emptyGolden.blankResponsesStream.completedText).toBe(emptyGolden.blankResponsesStream.deltas[0])
    expect(deltas).toHaveLength(1)
    expect(deltas[0]).toMatch(/^No reply: /)
    expect(completed).toBe(deltas[0])
  })
})

describe('a conversation whose system message changes every turn stays one session', () => {
  // Open WebUI fills {{CURRENT_DATETIME}}, its memory feature's user context and (RAG_SYSTEM_CONTEXT) retrieved sources
  // into the system message; upstream keys a conversation on system + first message, so it starts a session per turn.
  // Here the history recognises it (conversation.ts), and the model reads each turn's own system text.
  const rows = (sid: string) =>
    host.stores
      .get('default')
      .getMessagesAsConversation(sid)
      .map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : ''}`)
  const systemSent = () =>
    ((provider.requests.at(-1)!.body?.messages ?? []) as Msg[])
      .filter((m) => m.role === 'system')
      .map((m) => String(m.content))
      .join('\n')
  const sys = (n: number) => ({ role: 'system' as const, content: `Today is day ${n}. <context>source ${n}</context>` })
  const say = (content: string) => ({ role: 'user' as const, content })
  const was = (content: string) => ({ role: 'assistant' as const, content })
  const reply = (r: Awaited<ReturnType<typeof chat>>) => r.data.choices[0]!.message.content!

  it('the next turns continue the session, streamed or not, and the model reads the new system text', async () => {
    const a = await chat([sys(1), say('plan my week')])
    const b = await chat([sys(2), say('plan my week'), was(reply(a)), say('and Monday?')])
    expect(sidOf(b)).toBe(sidOf(a))
    expect(systemSent()).toContain('Today is day 2. <context>source 2</context>')
    expect(systemSent()).not.toContain('day 1')
    const c = await streamChat([
      sys(3),
      say('plan my week'),
      was(reply(a)),
      say('and Monday?'),
      was(reply(b)),
      say('and Tuesday?')
    ])
    expect(c.sid).toBe(sidOf(a))
    expect(rows(sidOf(a))).toEqual([
      'user:plan my week',
      `assistant:${reply(a)}`,
      'user:and Monday?',
      `assistant:${reply(b)}`,
      'user:and Tuesday?',
      `assistant:${c.text}`
    ])
  })

  it('is told from another conversation with the same first message by its replies', async () => {
    const a = await chat([sys(10), say('hi there')])
    const b = await chat([{ role: 'system', content: 'Another persona.' }, say('hi there')])
    expect(sidOf(b)).not.toBe(sidOf(a))
    const a2 = await chat([sys(11), say('hi there'), was(reply(a)), say('second for a')])
    const b2 = await chat([{ role: 'system', content: 'Persona, edited.' }, say('hi there'), was(reply(b)), say('b2')])
    expect([sidOf(a2), sidOf(b2)]).toEqual([sidOf(a), sidOf(b)])
    // Same first message, no reply of this server in the history: nothing identifies a conversation, so a new one.
    const c = await chat([sys(12), say('hi there'), was('a reply this server never gave'), say('third')])
    expect([sidOf(a), sidOf(b)]).not.toContain(sidOf(c))
    // A greeting before the first user message (SillyTavern's character card) is the client's text, not a reply.
    const greet = was('*waves* Welcome, traveller.')
    const d = await chat([sys(13), greet, say('hello innkeeper')])
    const e = await chat([sys(14), greet, say('hello innkeeper'), was('not what it answered'), say('a room?')])
    expect(sidOf(e)).not.toBe(sidOf(d))
    expect(host.stores.get('default').getSession(sidOf(e))?.parentSessionId ?? null).toBeNull()
    const d2 = await chat([sys(15), greet, say('hello innkeeper'), was(reply(d)), say('a room?')])
    expect(sidOf(d2)).toBe(sidOf(d))
  })

  it('a Regenerate under a new system text runs in a branch; the stored turns get no second answer', async () => {
    const a = await chat([sys(20), say('name a colour')])
    const b = await chat([sys(21), say('name a colour'), was(reply(a)), say('another one')])
    const before = rows(sidOf(a))
    // Regenerate of the last reply: the history without it, its user message sent again.
    const again = await chat([sys(22), say('name a colour'), was(reply(a)), say('another one')])
    expect(sidOf(again)).not.toBe(sidOf(a))
    expect(reply(again)).not.toBe(reply(b))
    expect(rows(sidOf(a))).toEqual(before)
    expect(host.stores.get('default').getSession(sidOf(again))?.parentSessionId).toBe(sidOf(a))
    expect(rows(sidOf(again))).toEqual([
      'user:name a colour',
      `assistant:${reply(a)}`,
      'user:another one',
      `assistant:${reply(again)}`
    ])
    // The conversation goes on from the regenerated answer: in the branch.
    const next = await chat([
      sys(23),
      say('name a colour'),
      was(reply(a)),
      say('another one'),
      was(reply(again)),
      say('thanks')
    ])
    expect(sidOf(next)).toBe(sidOf(again))
  })

  it('a history whose oldest messages the client dropped (its context window) continues the session; a Regenerate or edit in it branches', async () => {
    const persona = { role: 'system' as const, content: 'You are a terse bard.' }
    const a = await chat([persona, say('verse one')])
    const b = await chat([persona, say('verse one'), was(reply(a)), say('verse two')])
    const c = await streamChat([
      persona,
      say('verse one'),
      was(reply(a)),
      say('verse two'),
      was(reply(b)),
      say('three TOOL')
    ])
    // LibreChat past its context limit: the first exchange left out, then the first two (the window's last reply is a
    // streamed tool turn, shown as its text before the call and its reply in one message).
    const d = await chat([persona, say('verse two'), was(reply(b)), say('three TOOL'), was(c.text), say('four')])
    const e = await chat([persona, say('three TOOL'), was(c.text), say('four'), was(reply(d)), say('five')])
    expect([c.sid, sidOf(d), sidOf(e)]).toEqual([sidOf(a), sidOf(a), sidOf(a)])
    expect(rows(sidOf(a)).filter((r) => r.startsWith('user:'))).toEqual(
      ['verse one', 'verse two', 'three TOOL', 'four', 'five'].map((t) => `user:${t}`)
    )
    // The model reads what the client sent (its window), as upstream's does.
    expect(((provider.requests.at(-1)!.body?.messages ?? []) as Msg[]).filter((m) => m.role === 'user').length).toBe(3)
    // A window whose replies this session did not give is another conversation.
    const f = await chat([persona, say('three TOOL'), was('a verse of my own'), say('four')])
    expect(sidOf(f)).not.toBe(sidOf(a))
    // The same window's Regenerate of the latest reply: a branch from the session (its stored turns get no second
    // answer), holding the turns the client sent; the next message goes on in the branch.
    const store = host.stores.get('default')
    const before = rows(sidOf(a))
    const again = await chat([persona, say('four'), was(reply(d)), say('five')])
    expect(sidOf(again)).not.toBe(sidOf(a))
    expect(store.getSession(sidOf(again))?.parentSessionId).toBe(sidOf(a))
    expect(rows(sidOf(a))).toEqual(before)
    expect(rows(sidOf(again))).toEqual(['user:four', `assistant:${reply(d)}`, 'user:five', `assistant:${reply(again)}`])
    const six = await chat([persona, say('five'), was(reply(again)), say('six')])
    expect(sidOf(six)).toBe(sidOf(again))
    // An edit of an earlier message inside a window: a branch from the session at that turn.
    const edited = await chat([persona, say('verse two'), was(reply(b)), say('three, edited')])
    expect(store.getSession(sidOf(edited))?.parentSessionId).toBe(sidOf(a))
    expect(rows(sidOf(edited)).slice(0, 3)).toEqual(['user:verse two', `assistant:${reply(b)}`, 'user:three, edited'])
    expect(rows(sidOf(a))).toEqual(before)
  })

  it('an edited earlier message under a new system text branches from the turns before the edit', async () => {
    const a = await chat([sys(30), say('count to two')])
    const b = await chat([sys(31), say('count to two'), was(reply(a)), say('now to three')])
    await chat([sys(32), say('count to two'), was(reply(a)), say('now to three'), was(reply(b)), say('four?')])
    const before = rows(sidOf(a))
    const edited = await chat([sys(33), say('count to two'), was(reply(a)), say('now to ten')])
    expect(sidOf(edited)).not.toBe(sidOf(a))
    expect(host.stores.get('default').getSession(sidOf(edited))?.parentSessionId).toBe(sidOf(a))
    expect(rows(sidOf(a))).toEqual(before)
    expect(rows(sidOf(edited)).slice(0, 3)).toEqual(['user:count to two', `assistant:${reply(a)}`, 'user:now to ten'])
  })
})

describe('Responses', () => {
  it('a streamed Response is read back in_progress, and once its caller hangs up is kept incomplete', async () => {
    const controller = new AbortController()
    const stream = await client.responses.create(
      { model: 'hermes-agent', input: 'stall the response', stream: true },
      { signal: controller.signal }
    )
    let id = ''
    let during: OpenAI.Responses.Response | undefined
    for await (const e of stream) {
      if (e.type === 'response.created') id = e.response.id
      if (e.type !== 'response.output_text.delta') continue
      // Read back while it streams (leaving the loop hangs up): upstream answers its in_progress snapshot.
      during = await client.responses.retrieve(id)
      break
    }
    expect({ status: during?.status, output: during?.output }).toEqual(abortGolden.responses.getDuring.response)
    controller.abort()
    // The provider holds its stream open until the turn is stopped: the stopped turn is then kept.
    const kept = await until(async () => {
      const r = await fetch(`${server.url}/v1/responses/${id}`, { headers: auth })
      const body = r.status === 200 ? ((await r.json()) as { status: string; output_text: string }) : undefined
      return body?.status === 'in_progress' ? undefined : body
    })
    expect(kept.status).toBe('incomplete')
    expect(kept.output_text).toMatch(/^partial \d+/)
  })

  it("takes the SDK's conversation object form {id} as the name; one without a string id is refused", async () => {
    const a = await client.responses.create({ model: 'hermes-agent', input: 'named a', conversation: { id: 'conv_x' } })
    const b = await client.responses
      .create({ model: 'hermes-agent', input: 'named b', conversation: { id: 'conv_x' } })
      .withResponse()
    const first = await fetch(`${server.url}/v1/responses/${a.id}`, { headers: auth })
    expect(b.response.headers.get('x-hermes-session-id')).toBe(first.headers.get('x-hermes-session-id'))
    const bad = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ input: 'x', conversation: { name: 'nope' } })
    })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.message).toMatch(/conversation/)
  })
})

describe('protocol', () => {
  it('answers HEAD wherever GET is answered', async () => {
    for (const path of ['/health', '/v1/models', '/v1/capabilities']) {
      const r = await fetch(`${server.url}${path}`, { method: 'HEAD', headers: auth })
      expect([path, r.status]).toEqual([path, 200])
    }
    expect((await fetch(`${server.url}/v1/chat/completions`, { method: 'HEAD', headers: auth })).status).toBe(405)
  })

  it('reads a body in the charset its Content-Type declares (upstream decodes Latin-1 as Latin-1)', async () => {
    const post = (body: Buffer, type: string) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...auth, 'content-type': type },
        body: new Uint8Array(body)
      })
    const latin = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'café latin' }] }), 'latin1')
    const ok = await post(latin, 'application/json; charset=iso-8859-1')
    expect(ok.status).toBe(200)
    expect((await ok.json()).choices[0].message.content).toContain('café latin')
    expect((await post(latin, 'application/json; charset=no-such-charset')).status).toBe(415)
  })

  it('takes a gzip body; one that inflates past the 10 MB limit is 413', async () => {
    const post = (body: Buffer) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'gzip' },
        body: new Uint8Array(body)
      })
    const ok = await post(gzipSync(JSON.stringify({ messages: [{ role: 'user', content: 'zipped hello' }] })))
    expect(ok.status).toBe(200)
    expect((await ok.json()).choices[0].message.content).toMatch(/zipped hello/)
    const bomb = Buffer.concat([
      Buffer.from('{"messages":[{"role":"user","content":"'),
      Buffer.alloc(64 * 1024 * 1024, 0x61),
      Buffer.from('"}]}')
    ])
    const r = await post(gzipSync(bomb))
    expect(r.status).toBe(413)
    expect((await r.json()).error.code).toBe('body_too_large')
    expect((await post(Buffer.from('not gzip'))).status).toBe(400)
  })
})

// Open WebUI's default task prompts (backend/open_webui/config.py), shortened to their task line and their quote of
// the chat: `{{MESSAGES:END:n}}` renders the last n messages one per line as `ROLE: content`.
const quote = (msgs: Array<{ role: string; content: string }>) =>
  msgs.map((m) => `${m.role.toUpperCase()}: ${m.content}`).join('\n')
const TASK_LINES = {
  title: 'Generate a concise, 3-5 word title with an emoji summarizing the chat history.',
  tags: 'Generate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 more specific subtopic tags.',
  followUps:
    'Suggest 3-5 relevant follow-up questions or prompts that the user might naturally ask next in this conversation as a **user**, based on the chat history, to help continue or deepen the discussion.',
  queries:
    'Analyze the chat history to determine the necessity of generating search queries, in the given language. By default, **prioritize generating 1-3 broad and relevant search queries** unless it is absolutely certain that no additional information is required.'
}
const taskPrompt = (kind: keyof typeof TASK_LINES, msgs: Array<{ role: string; content: string }>, n: number) =>
  `### Task:\n${TASK_LINES[kind]}\n### Guidelines:\n- Respond with JSON only.\n### Output:\nJSON format: { "x": [] }\n### Chat History:\n<chat_history>\n${quote(msgs.slice(-n))}\n</chat_history>`

/** A task request as Open WebUI sends it: one user message, not streamed, with its token cap (and here a system prompt). */
const task = (content: string, extra: Record<string, unknown> = {}) =>
  client.chat.completions
    .create({
      model: 'hermes-agent',
      messages: [
        ...(extra.system ? [{ role: 'system' as const, content: String(extra.system) }] : []),
        { role: 'user', content }
      ],
      stream: false,
      max_completion_tokens: 1000,
      temperature: 0.1,
      ...(extra.maxTokens ? { max_tokens: Number(extra.maxTokens) } : {})
    })
    .withResponse()

const db = () => sqliteOf(host.stores.get('default'))
const row = (id: string) =>
  db()
    .prepare<
      [string],
      { source: string; hidden: number; api_call_count: number; input_tokens: number; output_tokens: number }
    >('SELECT source, hidden, api_call_count, input_tokens, output_tokens FROM sessions WHERE id = ?')
    .get(id)

const listed = async () => {
  const list = await host.dispatcher.invoke('sessions.list', { profile: 'default', limit: 500 })
  if (!list.ok) throw new Error(list.error.message)
  return (list.output as { items: Array<{ id: string }> }).items.map((s) => s.id)
}
const stored = () =>
  db()
    .prepare<[], { id: string }>('SELECT id FROM sessions')
    .all()
    .map((r) => r.id)

describe("Open WebUI's background task requests", () => {
  let conversation = ''
  let porto = ''
  let orphan = ''
  // what the home held before this block (the file's other conversations)
  let listedBefore: string[] = []
  let storedBefore = new Set<string>()
  const added = (ids: string[]) => ids.filter((id) => !storedBefore.has(id)).sort()

  it('are answered as before, and recorded on the conversation they quote, which stays one session', async () => {
    listedBefore = await listed()
    storedBefore = new Set(stored())
    const q1 = 'Plan three days in Lisbon for me'
    const first = await chat([{ role: 'user', content: q1 }])
    conversation = sidOf(first)
    const r1 = first.data.choices[0]!.message.content!
    const history = [
      { role: 'user', content: q1 },
      { role: 'assistant', content: r1 }
    ]
    const before = provider.requests.length
    for (const [kind, n, extra] of [
      ['title', 2, {}],
      ['tags', 6, { system: 'You are a helpful travel planner.' }],
      ['followUps', 6, { maxTokens: 200 }]
    ] as const) {
      const r = await task(taskPrompt(kind, history, n), extra)
      // the agent's answer, in the shape every request gets
      expect(r.response.status).toBe(200)
      expect(r.data.object).toBe('chat.completion')
      expect(r.data.choices[0]!.message.content).toMatch(/^\{ "title": "Task answer \d+" \}$/)
      expect(r.data.choices[0]!.finish_reason).toBe('stop')
      expect(r.data.usage!.total_tokens).toBeGreaterThan(0)
      // named by the session its usage is recorded in: the conversation's
      expect(sidOf(r)).toBe(conversation)
    }
    expect(provider.requests.length - before).toBe(3)
    // the query generation before the next turn quotes the new message too (not stored yet)
    const q2 = 'And what about day trips?'
    const queries = await task(taskPrompt('queries', [...history, { role: 'user', content: q2 }], 6))
    expect(sidOf(queries)).toBe(conversation)
    // the conversation itself goes on as before: the next turn continues its session
    const second = await chat([
      { role: 'user', content: q1 },
      { role: 'assistant', content: r1 },
      { role: 'user', content: q2 }
    ])
    expect(sidOf(second)).toBe(conversation)
    // a streamed task request: its header names the conversation before the answer streams
    const r2 = second.data.choices[0]!.message.content!
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'hermes-agent',
        messages: [
          {
            role: 'user',
            content: taskPrompt(
              'title',
              [...history, { role: 'user', content: q2 }, { role: 'assistant', content: r2 }],
              2
            )
          }
        ],
        stream: true
      })
      .withResponse()
    let text = ''
    for await (const chunk of stream) text += chunk.choices?.[0]?.delta?.content ?? ''
    expect(text).toMatch(/^\{ "title": "Task answer \d+" \}$/)
    expect(response.headers.get('x-hermes-session-id')).toBe(conversation)
  })

  it('a task quoting no stored conversation (the queries before a first message) is hidden until one quotes it', async () => {
    const q = 'Is it going to rain in Porto?'
    const r = await task(taskPrompt('queries', [{ role: 'user', content: q }], 6))
    expect(r.data.choices[0]!.message.content).toMatch(/Task answer/)
    const early = sidOf(r)
    expect(early).not.toBe(conversation)
    expect(row(early)).toMatchObject({ source: 'tool', hidden: 1, api_call_count: 1 })
    // the message is sent, answered, and its title asked for: the queries' usage joins that conversation
    const first = await chat([{ role: 'user', content: q }])
    porto = sidOf(first)
    const title = await task(
      taskPrompt(
        'title',
        [
          { role: 'user', content: q },
          { role: 'assistant', content: first.data.choices[0]!.message.content! }
        ],
        2
      )
    )
    expect(sidOf(title)).toBe(porto)
    expect(row(early)).toBeUndefined()
    expect(row(porto)).toMatchObject({ source: 'api_server', hidden: 0, api_call_count: 3 })
    const tasks = db()
      .prepare<[string], { task: string }>('SELECT task FROM session_model_usage WHERE session_id = ? ORDER BY task')
      .all(porto)
    expect(tasks.map((t) => t.task)).toEqual(['', 'query_generation', 'title_generation'])
    // one whose message is never sent stays hidden
    orphan = sidOf(await task(taskPrompt('queries', [{ role: 'user', content: 'never mind, draft' }], 6)))
    expect(row(orphan)).toMatchObject({ source: 'tool', hidden: 1, api_call_count: 1 })
  })

  it('the Sessions list gained the conversations alone; their usage holds every task quoting them, as its route', async () => {
    expect((await listed()).sort()).toEqual([...listedBefore, conversation, porto].sort())
    // two turns and five tasks quoting it: seven model calls on one session
    expect(row(conversation)).toMatchObject({ source: 'api_server', hidden: 0, api_call_count: 7 })
    const routes = db()
      .prepare<[string], { task: string; api_call_count: number }>(
        'SELECT task, api_call_count FROM session_model_usage WHERE session_id = ? ORDER BY task'
      )
      .all(conversation)
    expect(routes).toEqual([
      { task: '', api_call_count: 2 },
      { task: 'follow_up_generation', api_call_count: 1 },
      { task: 'query_generation', api_call_count: 1 },
      { task: 'tags_generation', api_call_count: 1 },
      { task: 'title_generation', api_call_count: 2 }
    ])
    // no session was left behind by a task that found its conversation
    expect(added(stored())).toEqual([conversation, porto, orphan].sort())
    // the Costs page counts all of it (the hidden one's spend too) and offers the conversation alone as a session
    const costs = await host.dispatcher.invoke('costs.summary', { profile: 'default', allSessions: true })
    if (!costs.ok) throw new Error(costs.error.message)
    const summary = costs.output as {
      topSessions: Array<{ sessionId: string }>
      tokensByDay: Array<{ tokens: { input: number; output: number } }>
    }
    const top = summary.topSessions.map((s) => s.sessionId)
    expect(top).toContain(conversation)
    expect(top).not.toContain(orphan)
    const sum = (k: 'input' | 'output') => summary.tokensByDay.reduce((n, d) => n + d.tokens[k], 0)
    const all = db()
      .prepare<[], { i: number; o: number }>('SELECT SUM(input_tokens) AS i, SUM(output_tokens) AS o FROM sessions')
      .get()!
    expect(sum('input')).toBe(all.i)
    expect(sum('output')).toBe(all.o)
  })

  it.skipIf(!withUpstream)("upstream's SessionDB lists the conversations alone and reads their usage whole", () => {
    const py = `
import json, sys
sys.path.insert(0, sys.argv[1])
from hermes_state import SessionDB
db = SessionDB(db_path=__import__('pathlib').Path(sys.argv[2]))
human = [s['id'] for s in db.list_sessions_rich(exclude_sources=['tool'], limit=1000)]
every = [s['id'] for s in db.list_sessions_rich(limit=1000)]
s = db.get_session(sys.argv[3])
print(json.dumps({'human': human, 'every': every, 'calls': s['api_call_count']}))
`
    const out = JSON.parse(
      execFileSync(PY, ['-c', py, UPSTREAM, join(root, 'state.db'), conversation], {
        env: { ...process.env, HERMES_HOME: root },
        encoding: 'utf8'
      })
    ) as { human: string[]; every: string[]; calls: number }
    // its human lists (CLI, TUI, gateway, which leave out `tool` sessions) gained the conversations alone
    expect(added(out.human)).toEqual([conversation, porto].sort())
    // its unfiltered list (its dashboard's) shows the internal session too, as it shows its own `tool` sessions
    expect(added(out.every)).toEqual([conversation, porto, orphan].sort())
    expect(out.calls).toBe(7)
  })

  it('sent to the Responses API (a Responses connection), a task is recorded on its conversation the same way', async () => {
    const q = 'Which museums open on Mondays?'
    const { data: first, response: opened } = await client.responses
      .create({ model: 'hermes-agent', input: q, instructions: 'You are helpful.' })
      .withResponse()
    const sid = opened.headers.get('x-hermes-session-id')!
    const before = new Set(stored())
    const history = [
      { role: 'user', content: q },
      { role: 'assistant', content: first.output_text }
    ]
    const asItems = (text: string): OpenAI.Responses.ResponseInput => [
      { role: 'user', content: [{ type: 'input_text', text }] }
    ]
    for (const [kind, input] of [
      ['title', taskPrompt('title', history, 2)],
      ['followUps', asItems(taskPrompt('followUps', history, 6))]
    ] as Array<[string, string | OpenAI.Responses.ResponseInput]>) {
      const { data, response } = await client.responses.create({ model: 'hermes-agent', input }).withResponse()
      expect(data.output_text, kind).toMatch(/^\{ "title": "Task answer \d+" \}$/)
      expect(response.headers.get('x-hermes-session-id'), kind).toBe(sid)
    }
    // no session of its own, and the conversation's turns are its two messages alone
    expect(stored().filter((id) => !before.has(id))).toEqual([])
    expect(row(sid)).toMatchObject({ source: 'api_server', hidden: 0, api_call_count: 3 })
    const routes = db()
      .prepare<[string], { task: string }>('SELECT task FROM session_model_usage WHERE session_id = ? ORDER BY task')
      .all(sid)
    expect(routes.map((r) => r.task)).toEqual(['', 'follow_up_generation', 'title_generation'])
    const count = db().prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?')
    expect(count.get(sid)!.n).toBe(2)
  })
})
