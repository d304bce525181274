// The API server as the Gateway page starts it (in-process host, `channels.apiServer`), driven by the official
// `openai` SDK: image parts reach an Anthropic-wire provider as image blocks, a model that cannot see answers a 400
// that says so, a memory provider left out is reported in X-Hermes-Warnings and the Responses/Runs objects, and a run
// stopped while the model continues a cut-off reply keeps every part so far as its output.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelsStatus } from '@shared/contract'
import { startScriptedProvider, type ScriptedProvider } from '../src-main/agent/scripted'
import type { ScriptReply } from '../src-main/agent/scripted/script'
import { chunk, sse, startRouteServer, type RouteServer } from '../src-main/agent/providers/test-fixtures/route-server'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { errorMessage } from '@shared/contract/errors'

const KEY = 'hk_host_api_test_key_0123456789'
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const NOSUCH = "Memory provider 'nosuch' is not installed"
let root: string

/** How upstream ends a turn at agent.max_turns: 2 (scripts/golden/iteration_limit.py). */
const limitGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/upstream/iteration-limit/cases.json'), 'utf8')
) as {
  cases: Record<
    string,
    {
      reply: unknown
      summaryRequests: Array<{ roles: string[] }>
      rows: Array<[string, unknown, string | null, boolean]>
      session: { apiCallCount: number }
    }
  >
}
const ERROR_TEXT = 'bad request for the summary'
/** The scripted model's answers to the summary call (its `n`th for the turn), as the golden's provider answers. */
const LIMIT_REPLIES = {
  summary: () => ({ text: 'Summary of the work.' }),
  think: () => ({ text: '<think>only reasoning here</think>' }),
  empty: () => ({ text: '' }),
  empty_once: (n: number) => ({ text: n === 1 ? '' : 'Second try.' }),
  error: () => ({ error: 400, errorMessage: ERROR_TEXT }),
  fragment: () => ({ text: 'The' })
} satisfies Record<string, (n: number) => ScriptReply>
type LimitCase = keyof typeof LIMIT_REPLIES
/** The agent's own request for a final answer (limit-summary.ts): a hidden "[System:" note asking for one. */
const isLimitPrompt = (text: unknown) =>
  typeof text === 'string' && text.startsWith('[System:') && text.includes('final answer')
/** A call made after a tool round with no tools offered: the summary call (a title request has no tool results). */
const isSummaryCall = (body: unknown) => {
  const b = body as { tools?: unknown[]; messages?: Array<{ role: string }> } | null
  return !b?.tools?.length && Boolean(b?.messages?.some((m) => m.role === 'tool'))
}
let host: Host
let provider: ScriptedProvider
/** Every reply cut off by the output cap. */
let capped: ScriptedProvider
/** The first reply's connection drops after some text; the model's continuation streams a little, then holds. */
let dropping: RouteServer
let continuing = false
/** Never done: every reply with tools calls one more, beside a few words (a title request gets a title). */
let looping: ScriptedProvider

function profile(name: string, config: string): void {
  const home = name === 'default' ? root : join(root, 'profiles', name)
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'config.yaml'), config)
  writeFileSync(join(home, '.env'), `API_SERVER_KEY=${KEY}\nAPI_SERVER_PORT=0\nANTHROPIC_API_KEY=sk-ant-test\n`, {
    mode: 0o600
  })
}

/** Serve `name` (the Gateway page's toggle) and return an SDK client for it. */
async function serve(name: string): Promise<OpenAI> {
  await host.dispatcher.invoke('channels.apiServer', { enabled: false, profile: name })
  const r = await host.dispatcher.invoke('channels.apiServer', { enabled: true, profile: name })
  if (!r.ok) throw new Error(r.error.message)
  return new OpenAI({ baseURL: (r.output as ChannelsStatus).apiServer.url!, apiKey: KEY, maxRetries: 0 })
}

beforeAll(async () => {
  provider = await startScriptedProvider({ handler: () => ({ text: 'I see it' }) })
  capped = await startScriptedProvider({ handler: () => ({ text: 'part ', finishReason: 'length' }) })
  dropping = await startRouteServer((_req, res) => {
    const last = dropping.bodies.at(-1) ?? ''
    sse(res)
    if (last.includes('[System: The connection dropped')) {
      continuing = true
      return void res.write(chunk({ content: 'part two ' })) // and the model goes on writing
    }
    if (!last.includes('say it')) return void res.end(chunk({ content: 'A title' }, 'stop') + 'data: [DONE]\n\n')
    res.write(chunk({ content: 'Part one, ' }), () => setTimeout(() => res.socket?.destroy(), 20))
  })
  looping = await startScriptedProvider({
    handler: (req) => {
      const body = req.body as { tools?: unknown[]; messages: Array<{ role: string; content: string }> }
      if (body.tools?.length) return { text: 'Checking the logs', toolCalls: [{ name: 'no_such_tool', arguments: {} }] }
      if (!body.messages.some((m) => m.role === 'tool')) return { text: 'A title' }
      // the summary call at the limit (no tools offered): answered by the case named in the user's message
      const ask = body.messages.find((m) => m.role === 'user')!.content
      const n = looping.requests.filter((r) => isSummaryCall(r.body) && JSON.stringify(r.body).includes(ask)).length
      const limitCase = (Object.keys(LIMIT_REPLIES) as LimitCase[]).find((c) => ask.startsWith(`case ${c} `))!
      return LIMIT_REPLIES[limitCase](n)
    }
  })
  root = mkdtempSync(join(tmpdir(), 'cad-api-host-'))
  const custom = `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\n`
  profile('default', `model:\n  default: claude-x\n  provider: anthropic\n  base_url: ${provider.baseUrl}\n`)
  profile('demo', 'model:\n  default: demo-model\n  provider: demo\n')
  profile('blind', `${custom}  supports_vision: false\n`)
  profile('warnchat', `${custom}memory:\n  provider: nosuch\n`)
  profile('warnresp', `${custom}memory:\n  provider: nosuch\n`)
  profile('warnrun', `${custom}memory:\n  provider: nosuch\n`)
  profile('warnstream', `${custom}memory:\n  provider: nosuch\n`)
  profile('capped', `model:\n  default: m\n  provider: custom\n  base_url: ${capped.baseUrl}\n`)
  profile('dropping', `model:\n  default: m\n  provider: custom\n  base_url: ${dropping.baseUrl}\n`)
  const limited = `model:\n  default: m\n  provider: custom\n  base_url: ${looping.baseUrl}\nagent:\n  max_turns: 2\n`
  profile('looping', limited)
  profile('looping-quiet', `${limited}display:\n  turn_completion_explainer: false\n`)
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, live: false, log: createLogger() })
})

afterAll(async () => {
  await host?.close()
  await provider?.close()
  await capped?.close()
  await dropping?.close()
  await looping?.close()
  rmSync(root, { recursive: true, force: true })
})

const imageMessage: OpenAI.ChatCompletionMessageParam = {
  role: 'user',
  content: [
    { type: 'text', text: 'what is this?' },
    { type: 'image_url', image_url: { url: PNG } }
  ]
}

describe('API server in the host', { timeout: 30_000 }, () => {
  it('an Anthropic provider receives image parts as image blocks', async () => {
    const client = await serve('default')
    const r = await client.chat.completions.create({ model: 'hermes-agent', messages: [imageMessage] })
    expect(r.choices[0]!.message.content).toBe('I see it')
    const req = provider.requests.at(-1)!
    expect(req.path).toContain('/messages')
    const user = (req.body.messages as Array<{ role: string; content: unknown }>).at(-1)!
    expect(user.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.split(',')[1] } }
    ])
  })

  it('a model that cannot take images answers 400 saying so, and nothing is sent or stored', async () => {
    for (const [name, why] of [
      ['demo', /the demo model cannot take images/],
      ['blind', /the model m cannot take images \(config.yaml model.supports_vision: false\)/]
    ] as const) {
      const client = await serve(name)
      const before = provider.requests.length
      const err = await client.chat.completions
        .create({ model: 'hermes-agent', messages: [imageMessage] })
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(OpenAI.BadRequestError)
      expect(errorMessage(err)).toMatch(why)
      expect(provider.requests.length).toBe(before)
      const sessions = await host.dispatcher.invoke('sessions.list', { profile: name })
      expect(sessions.ok && (sessions.output as { items: unknown[] }).items).toEqual([])
    }
  })

  it('chat completions report provider warnings in X-Hermes-Warnings', async () => {
    const client = await serve('warnchat')
    const { response } = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse()
    const header = response.headers.get('x-hermes-warnings')
    expect(JSON.parse(header!)).toEqual([expect.stringContaining(NOSUCH)])
  })

  it('a chat completion stream reports them in the header before the first chunk', async () => {
    const client = await serve('warnstream')
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: 'hello' }] })
      .withResponse()
    expect(JSON.parse(response.headers.get('x-hermes-warnings')!)).toEqual([expect.stringContaining(NOSUCH)])
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toBe('I see it')
  })

  it('the Responses object carries warnings (and the header)', async () => {
    const client = await serve('warnresp')
    const { data, response } = await client.responses.create({ model: 'hermes-agent', input: 'hello' }).withResponse()
    expect((data as unknown as { warnings: string[] }).warnings).toEqual([expect.stringContaining(NOSUCH)])
    expect(JSON.parse(response.headers.get('x-hermes-warnings')!)).toEqual([expect.stringContaining(NOSUCH)])
    // Stored as answered: a later GET shows the same warnings.
    const again = await client.responses.retrieve(data.id)
    expect((again as unknown as { warnings: string[] }).warnings).toEqual([expect.stringContaining(NOSUCH)])
  })

  it('the run status carries warnings', async () => {
    const client = await serve('warnrun')
    const started = (await client.post('/runs', { body: { input: 'hello' } })) as { run_id: string }
    type Status = { status: string; warnings: string[] }
    let status = (await client.get(`/runs/${started.run_id}`)) as Status
    for (let i = 0; i < 200 && status.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 25))
      status = (await client.get(`/runs/${started.run_id}`)) as Status
    }
    expect(status).toMatchObject({ status: 'completed', warnings: [expect.stringContaining(NOSUCH)] })
  })

  it("a reply still cut off after 3 requests to continue is upstream's soft partial: 200, finish_reason length", async () => {
    const client = await serve('capped')
    const { data, response } = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'write a lot' }] })
      .withResponse()
    expect(data.choices[0]!.message.content).toBe('part part part part ')
    expect(data.choices[0]!.finish_reason).toBe('length')
    expect((data as unknown as { hermes: unknown }).hermes).toEqual({
      completed: false,
      partial: true,
      failed: false,
      error: 'the reply was still cut off by the output cap after 3 requests to continue; it ends there',
      error_code: 'output_truncated'
    })
    expect(response.headers.get('x-hermes-completed')).toBe('false')
    expect(response.headers.get('x-hermes-partial')).toBe('true')
    // streamed: the text, then a finish chunk that says it was cut off (with an `error`, as upstream's: the openai
    // SDK raises on it, so it is read raw here)
    const raw = await fetch(`${client.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'hermes-agent',
        messages: [{ role: 'user', content: 'write a lot' }],
        stream: true
      })
    })
    const events = (await raw.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)) as OpenAI.ChatCompletionChunk & { hermes?: unknown })
    expect(events.map((e) => e.choices[0]?.delta.content ?? '').join('')).toBe('part part part part ')
    const last = events.at(-1)!
    expect(last.choices[0]!.finish_reason).toBe('length')
    expect(last.hermes).toMatchObject({ partial: true, error_code: 'output_truncated' })
    // the Responses API answers it with the text, as upstream's does
    const resp = await client.responses.create({ model: 'hermes-agent', input: 'write a lot' })
    expect(resp.status).toBe('completed')
    expect(resp.output_text).toBe('part part part part ')
    // and a run completes with it (upstream's runs fail only a failed result)
    const started = (await client.post('/runs', { body: { input: 'write a lot' } })) as { run_id: string }
    type Status = { status: string; output?: string }
    let status = (await client.get(`/runs/${started.run_id}`)) as Status
    for (let i = 0; i < 200 && !['completed', 'failed'].includes(status.status); i++) {
      await new Promise((r) => setTimeout(r, 25))
      status = (await client.get(`/runs/${started.run_id}`)) as Status
    }
    expect(status).toMatchObject({ status: 'completed', output: 'part part part part ' })
  })
  it('a turn at the iteration limit asks once more without tools for a final answer, and stores it, as upstream does', async () => {
    const ask = async (name: string, limitCase: LimitCase) => {
      const client = await serve(name)
      const before = looping.requests.length
      const { data, response } = await client.chat.completions
        .create({ model: 'hermes-agent', messages: [{ role: 'user', content: `case ${limitCase} ${name}` }] })
        .withResponse()
      const summaryCalls = looping.requests.slice(before).filter((r) => isSummaryCall(r.body))
      const db = new Database(join(root, 'profiles', name, 'state.db'), { readonly: true })
      const sid = response.headers.get('x-hermes-session-id')!
      const rows = db
        .prepare(
          'SELECT role, content, finish_reason, tool_calls IS NOT NULL AS calls FROM messages WHERE session_id = ? ORDER BY id'
        )
        .all(sid) as Array<{ role: string; content: string | null; finish_reason: string | null; calls: number }>
      const counters = db
        .prepare('SELECT api_call_count AS n, input_tokens AS input FROM sessions WHERE id = ?')
        .get(sid) as { n: number; input: number }
      db.close()
      return { reply: data.choices[0]!.message.content!, summaryCalls, rows, counters, sid, client }
    }
    /** What the reply or a row is, as the golden records upstream's own words (iteration_limit.py's shape_text). */
    const shape = (text: string | null, limitCase: LimitCase): unknown => {
      if (isLimitPrompt(text)) return '<summary request>'
      if (!text || /^case |^Checking the logs$|"error"|Summary of the work\.|Second try\.|^The$/.test(text)) return text
      const explained = /^(The\n\n)?No final answer: the turn used all 2 of its model calls/.exec(text)
      if (explained) return `${explained[1] ?? ''}<explanation>`
      if (limitCase === 'error')
        return {
          kind: '<summary error>',
          namesBudget: text.includes('all 2 of'),
          namesError: text.includes(ERROR_TEXT)
        }
      return '<no summary>'
    }
    for (const [name, limitCase, profileName] of [
      ['summary', 'summary', 'looping'],
      ['think', 'think', 'looping'],
      ['empty', 'empty', 'looping'],
      ['empty_once', 'empty_once', 'looping'],
      ['error', 'error', 'looping'],
      ['fragment', 'fragment', 'looping'],
      ['fragment_explainer_off', 'fragment', 'looping-quiet']
    ] as const) {
      const want = limitGolden.cases[name]!
      const got = await ask(profileName, limitCase)
      expect(shape(got.reply, limitCase), name).toEqual(want.reply)
      // one toolless call (two when the first answer is empty), its last message the request, a user message
      expect(got.summaryCalls.length, name).toBe(want.summaryRequests.length)
      for (const call of got.summaryCalls) {
        const msgs = (call.body as { messages: Array<{ role: string; content: string }> }).messages
        // the conversation as the loop's own calls send it (a system prompt when the profile has one)
        const roles = (list: string[]) => list.filter((r) => r !== 'system')
        expect(roles(msgs.map((m) => m.role)), name).toEqual(roles(want.summaryRequests[0]!.roles))
        expect(shape(msgs.at(-1)!.content, limitCase), name).toBe('<summary request>')
      }
      // the rows as upstream's SessionDB reads them: roles, finish_reason, calls; the model's text or what it stands for
      const rows = got.rows.map((r) => [
        r.role,
        r.role === 'tool' ? '<tool result>' : shape(r.content, limitCase),
        r.finish_reason,
        !!r.calls
      ])
      const theirs = want.rows.map((r) => [r[0], r[0] === 'tool' ? '<tool result>' : r[1], r[2], r[3]])
      // upstream's tool-call rows carry no text; ours carry the model's words beside the call
      expect(
        rows.map((r) => (r[0] === 'assistant' && r[3] ? [r[0], '', r[2], r[3]] : r)),
        name
      ).toEqual(
        theirs.map((r) =>
          r[0] === 'user' && typeof r[1] === 'string' && r[1].startsWith('case ')
            ? [r[0], `case ${limitCase} ${profileName}`, r[2], r[3]]
            : r
        )
      )
      // the summary call is not counted (upstream: api_call_count 2, the budget's calls' tokens only)
      expect(got.counters.n, name).toBe(want.session.apiCallCount)
      if (name !== 'summary') continue
      // the client goes on from the answer it got: the agent's own request row is not taken for a turn it never sent,
      // so the new user message follows the stored answer, nothing copied again
      await got.client.chat.completions.create(
        {
          model: 'hermes-agent',
          messages: [
            { role: 'user', content: 'case summary summary' },
            { role: 'assistant', content: got.reply },
            { role: 'user', content: 'case summary thanks' }
          ]
        },
        { headers: { 'X-Hermes-Session-Id': got.sid } }
      )
      const db = new Database(join(root, 'profiles', 'looping', 'state.db'), { readonly: true })
      const next = db
        .prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id LIMIT 2 OFFSET ?')
        .all(got.sid, got.rows.length)
      db.close()
      expect(next[0]).toEqual({ role: 'user', content: 'case summary thanks' })
    }
  })

  it('a run stopped while the model continues a cut-off reply reports every part so far as its output', async () => {
    const client = await serve('dropping')
    const started = (await client.post('/runs', { body: { input: 'say it' } })) as { run_id: string }
    // the run's own events: stop once the continuation's text has reached the client
    const events = await fetch(`${client.baseURL}/runs/${started.run_id}/events`, {
      headers: { authorization: `Bearer ${KEY}` }
    })
    const reader = events.body!.getReader()
    let seen = ''
    while (!seen.includes('part two')) seen += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(continuing).toBe(true)
    await client.post(`/runs/${started.run_id}/stop`)
    type Status = { status: string; output?: string }
    let status = (await client.get(`/runs/${started.run_id}`)) as Status
    for (let i = 0; i < 200 && status.status !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 25))
      status = (await client.get(`/runs/${started.run_id}`)) as Status
    }
    // joined as a finished continuation joins them (the kept part trimmed, as upstream keeps it)
    expect(status).toMatchObject({ status: 'cancelled', output: 'Part one,part two ' })
  })
})
