// The API server as the Gateway page starts it (in-process host, `channels.apiServer`), driven by the official
// `openai` SDK: image parts reach an Anthropic-wire provider as image blocks, a model that cannot see answers a 400
// that says so, a memory provider left out is reported in X-Hermes-Warnings and the Responses/Runs objects, and a run
// stopped while the model continues a cut-off reply keeps every part so far as its output.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelsStatus } from '@shared/contract'
import { startScriptedProvider, type ScriptedProvider } from '../src-main/agent/scripted'
import { chunk, sse, startRouteServer, type RouteServer } from '../src-main/agent/providers/test-fixtures/route-server'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { errorMessage } from '@shared/contract/errors'

const KEY = 'hk_host_api_test_key_0123456789'
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const NOSUCH = "Memory provider 'nosuch' is not installed"
let root: string
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
    handler: (req) =>
      (req.body as { tools?: unknown[] } | null)?.tools?.length
        ? { text: 'Checking the logs', toolCalls: [{ name: 'no_such_tool', arguments: {} }] }
        : { text: 'A title' }
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
  it('a turn that hits the iteration limit without an answer says why (display.turn_completion_explainer), unless switched off', async () => {
    const ask = async (name: string) => {
      const client = await serve(name)
      const r = await client.chat.completions.create({
        model: 'hermes-agent',
        messages: [{ role: 'user', content: 'find the bug' }]
      })
      return r.choices[0]!.message.content
    }
    // upstream's gate: the reply is a fragment (short, no closing mark), so the explanation follows it
    const explained = await ask('looping')
    expect(explained).toMatch(/^Checking the logs\n\nNo final answer: the turn used all 2 of its model calls/)
    // switched off in config.yaml: the bare reply, as upstream gives it
    expect(await ask('looping-quiet')).toBe('Checking the logs')
    // the explanation is for the caller: the stored rows are the model's own
    const listed = await host.dispatcher.invoke('sessions.list', { profile: 'looping' })
    const sid = (listed.ok && (listed.output as { items: Array<{ id: string }> }).items[0]!.id)!
    const msgs = await host.dispatcher.invoke('sessions.messages', { profile: 'looping', sessionId: sid })
    const said = (msgs.ok ? (msgs.output as { items: Array<{ content: string | null }> }).items : []).map(
      (m) => m.content
    )
    expect(said).toContain('Checking the logs')
    expect(said.some((c) => c?.includes('No final answer'))).toBe(false)
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
