// A real `caduceus api` process driven by the official `openai` SDK, on a profile whose provider is a scripted
// server: conversations that resend their history stay one session, a retried failure is answered once, the
// Responses stream helper gets its final text, and the concurrency cap answers 429 with Retry-After instead of falling
// over.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider } from '../src-main/agent/scripted'
import { spawnHost, type SpawnedHost } from './support/serve'
import { errorMessage } from '@shared/contract/errors'

const KEY = 'hk_process_test_key_0123456789'
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
let provider: ScriptedProvider
let api: SpawnedHost
let root: string
let client: OpenAI
const failures = new Map<string, number>()

const lastUser = (req: RecordedRequest): string => {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const u = [...msgs].reverse().find((m) => m.role === 'user')
  return typeof u?.content === 'string' ? u.content : JSON.stringify(u?.content ?? '')
}

const rows = <T>(sql: string, ...args: unknown[]): T[] => {
  const db = new Database(join(root, 'state.db'), { readonly: true })
  try {
    return db.prepare(sql).all(...args) as T[]
  } finally {
    db.close()
  }
}
const messagesOf = (sid: string) =>
  rows<{ role: string; content: string }>('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id', sid)

/** The 429 test's provider calls wait for `release` (see the handler). */
const held = (() => {
  let release = () => {}
  const open = new Promise<void>((r) => (release = r))
  return { open, release: () => release(), arrived: 0 }
})()

beforeAll(async () => {
  provider = await startScriptedProvider({
    handler: (req) => {
      const text = lastUser(req)
      // "fail N: ..." fails its first N provider calls, then answers.
      const m = /^fail (\d+):/.exec(text)
      if (m) {
        const seen = failures.get(text) ?? 0
        failures.set(text, seen + 1)
        if (seen < Number(m[1])) return { error: 500, errorMessage: 'provider exploded' }
      }
      // The keepalive stream needs only a silence longer than CADUCEUS_SSE_KEEPALIVE_MS (250 ms); the 429 test needs
      // 14 requests in flight together: its calls are held until the test has seen every request answered or
      // admitted (a fixed delay let an admitted call end first on a loaded machine, so a 14th was admitted too).
      if (text === 'slow stream') return { text: `slowly: ${text}`, delayMs: 600 }
      if (text.startsWith('held')) {
        held.arrived++
        return held.open.then(() => ({ text: `slowly: ${text}` }))
      }
      return { text: `answer to ${text}` }
    }
  })
  root = mkdtempSync(join(tmpdir(), 'cad-api-proc-'))
  writeFileSync(
    join(root, 'config.yaml'),
    `model:\n  default: m\n  provider: custom\n  base_url: ${provider.baseUrl}\nprovider_limits:\n  max_retries: 0\n` +
      'platforms:\n  api_server:\n    extra:\n      model_routes:\n        fast:\n          model: routed-model\n'
  )
  writeFileSync(join(root, '.env'), `API_SERVER_KEY=${KEY}\n`, { mode: 0o600 })
  api = await spawnHost({
    args: ['bin/caduceus.mjs', 'api', '--home', root, '--port', '0'],
    name: 'api',
    env: { CADUCEUS_LOG_DIR: join(root, 'logs'), CADUCEUS_SSE_KEEPALIVE_MS: '250' }
  })
  client = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: KEY, maxRetries: 2 })
}, 90_000)

afterAll(async () => {
  await api?.stop()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('caduceus api through the openai SDK', { timeout: 60_000 }, () => {
  it("reports the app's version on /health, as upstream reports its own", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }
    expect(await (await fetch(`${api.url}/health`)).json()).toMatchObject({ status: 'ok', version: pkg.version })
  })

  it('a 3-turn conversation that resends its whole history is one session of 6 messages, id as upstream derives it', async () => {
    const system = { role: 'system' as const, content: 'You are terse.' }
    const history: OpenAI.ChatCompletionMessageParam[] = []
    const sids = new Set<string>()
    for (const q of ['first question', 'second question', 'third question']) {
      history.push({ role: 'user', content: q })
      const { data, response } = await client.chat.completions
        .create({ model: 'hermes-agent', messages: [system, ...history] })
        .withResponse()
      history.push({ role: 'assistant', content: data.choices[0]!.message.content! })
      sids.add(response.headers.get('x-hermes-session-id')!)
    }
    expect(sids.size).toBe(1)
    const [sid] = [...sids]
    // upstream: "api-" + sha256(system + "\n" + first user message)[:16]
    const { createHash } = await import('node:crypto')
    const want = `api-${createHash('sha256').update('You are terse.\nfirst question').digest('hex').slice(0, 16)}`
    expect(sid).toBe(want)
    expect(messagesOf(sid!).map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:first question',
      'assistant:answer to first question',
      'user:second question',
      'assistant:answer to second question',
      'user:third question',
      'assistant:answer to third question'
    ])
  })

  it('an edited history continues in a branch; the stored conversation is left as it was', async () => {
    const ask = (messages: OpenAI.ChatCompletionMessageParam[]) =>
      client.chat.completions.create({ model: 'hermes-agent', messages }).withResponse()
    const a = await ask([{ role: 'user', content: 'branch root' }])
    const sid = a.response.headers.get('x-hermes-session-id')!
    await ask([
      { role: 'user', content: 'branch root' },
      { role: 'assistant', content: a.data.choices[0]!.message.content! },
      { role: 'user', content: 'original follow-up' }
    ])
    // The user edited the first reply away and asks something else.
    const edited: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'branch root' },
      { role: 'assistant', content: 'an edited reply' },
      { role: 'user', content: 'edited follow-up' }
    ]
    const b = await ask(edited)
    const branch = b.response.headers.get('x-hermes-session-id')!
    expect(branch).not.toBe(sid)
    expect(messagesOf(sid)).toHaveLength(4)
    expect(messagesOf(branch).map((m) => m.content)).toEqual([
      'branch root',
      'an edited reply',
      'edited follow-up',
      'answer to edited follow-up'
    ])
    expect(
      rows<{ parent_session_id: string }>('SELECT parent_session_id FROM sessions WHERE id = ?', branch)[0]
    ).toEqual({ parent_session_id: sid })
    // The branch's next turn finds the branch again.
    const c = await ask([
      ...edited,
      { role: 'assistant', content: b.data.choices[0]!.message.content! },
      { role: 'user', content: 'more' }
    ])
    expect(c.response.headers.get('x-hermes-session-id')).toBe(branch)
    expect(messagesOf(branch)).toHaveLength(6)
  })

  it('an SDK-retried failure leaves one session with one user message, answered by the retry', async () => {
    const before = provider.requests.length
    const { data, response } = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'fail 1: retried question' }] })
      .withResponse()
    expect(data.choices[0]!.message.content).toBe('answer to fail 1: retried question')
    const sid = response.headers.get('x-hermes-session-id')!
    expect(messagesOf(sid).map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(rows('SELECT id FROM sessions WHERE id LIKE ?', 'api-%').length).toBeGreaterThan(0)
    expect(provider.requests.length - before).toBe(2)
    // A failure the retries cannot fix: three attempts, still one session holding the one user message.
    const err = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'fail 9: hopeless' }] })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OpenAI.APIError)
    const sessions = rows<{ session_id: string }>(
      "SELECT DISTINCT session_id FROM messages WHERE content = 'fail 9: hopeless'"
    )
    expect(sessions).toHaveLength(1)
    expect(messagesOf(sessions[0]!.session_id).map((m) => m.role)).toEqual(['user'])
  })

  it('the same request again runs anew, as upstream runs every request (no stored reply handed back)', async () => {
    const messages = [{ role: 'user' as const, content: 'answer me once' }]
    const first = await client.chat.completions.create({ model: 'hermes-agent', messages }).withResponse()
    const before = provider.requests.length
    const again = await client.chat.completions.create({ model: 'hermes-agent', messages }).withResponse()
    expect(provider.requests.length - before).toBe(1)
    expect(again.data.usage!.total_tokens).toBeGreaterThan(0)
    // The stored conversation is left whole; the second answer is recorded in a branch of it.
    expect(messagesOf(first.response.headers.get('x-hermes-session-id')!)).toHaveLength(2)
    expect(again.response.headers.get('x-hermes-session-id')).not.toBe(
      first.response.headers.get('x-hermes-session-id')
    )
  })

  it('an Idempotency-Key repeats the first result even when the history would allow another turn', async () => {
    const opts = { headers: { 'Idempotency-Key': 'idem-123' } }
    const body = { model: 'hermes-agent', messages: [{ role: 'user' as const, content: 'idempotent please' }] }
    const before = provider.requests.length
    const [a, b] = await Promise.all([
      client.chat.completions.create(body, opts),
      client.chat.completions.create(body, opts)
    ])
    expect(provider.requests.length - before).toBe(1)
    expect(b.choices[0]!.message.content).toBe(a.choices[0]!.message.content)
  })

  it('responses.stream() yields the final text', async () => {
    const stream = client.responses.stream({ model: 'hermes-agent', input: 'stream a response' })
    const deltas: string[] = []
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta))
    const final = await stream.finalResponse()
    expect(final.output_text).toBe('answer to stream a response')
    expect(deltas.join('')).toBe('answer to stream a response')
  })

  it('echoes the requested model; a model_routes alias runs its model and is listed', async () => {
    const r = await client.chat.completions.create({
      model: 'my-alias',
      messages: [{ role: 'user', content: 'model?' }]
    })
    expect(r.model).toBe('my-alias')
    expect(provider.requests.at(-1)!.body.model).toBe('m')
    const routed = await client.chat.completions.create({
      model: 'fast',
      messages: [{ role: 'user', content: 'routed?' }]
    })
    expect(routed.model).toBe('fast')
    expect(provider.requests.at(-1)!.body.model).toBe('routed-model')
    const models = (await client.models.list()).data
    expect(models.map((m) => [m.id, (m as unknown as { root: string }).root])).toEqual([
      ['hermes-agent', 'hermes-agent'],
      ['fast', 'routed-model']
    ])
  })

  it("image parts reach the provider as image_url parts and are stored as upstream's agent flush stores them", async () => {
    const image = { type: 'image_url' as const, image_url: { url: PNG, detail: 'low' as const } }
    const first: OpenAI.ChatCompletionMessageParam = {
      role: 'user',
      content: [{ type: 'text', text: 'what is this?' }, image]
    }
    const a = await client.chat.completions.create({ model: 'hermes-agent', messages: [first] }).withResponse()
    const sent = (provider.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>).at(-1)!
    expect(sent).toEqual({ role: 'user', content: [{ type: 'text', text: 'what is this?' }, image] })
    const sid = a.response.headers.get('x-hermes-session-id')!
    // the id upstream's API server derives for this very request (Python's repr of the parts; golden)
    const ids = JSON.parse(
      readFileSync(join(import.meta.dirname, 'fixtures/upstream/api-session-ids/cases.json'), 'utf8')
    )
    const same = (ids.cases as Array<{ system: null; content: unknown; id: string }>).find(
      (c) => c.system === null && JSON.stringify(c.content) === JSON.stringify(first.content)
    )
    expect(sid).toBe(same!.id)
    const stored = messagesOf(sid)[0]!.content
    // upstream's _flush_messages_to_session_db: text parts one per line, each image "[screenshot]", no image data
    expect(stored).toBe('what is this?\n[screenshot]')
    // The client resends the image turn as history: recognised as the same conversation, not a branch.
    const b = await client.chat.completions
      .create({
        model: 'hermes-agent',
        messages: [
          first,
          { role: 'assistant', content: a.data.choices[0]!.message.content! },
          { role: 'user', content: 'and now?' }
        ]
      })
      .withResponse()
    expect(b.response.headers.get('x-hermes-session-id')).toBe(sid)
    expect(messagesOf(sid)).toHaveLength(4)
    // The Responses API spelling (input_image with a top-level image_url string) arrives the same way.
    await client.responses.create({
      model: 'hermes-agent',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'and this?' },
            { type: 'input_image', image_url: PNG, detail: 'auto' }
          ]
        }
      ]
    })
    const last = (provider.requests.at(-1)!.body.messages as Array<{ content: unknown }>).at(-1)!
    expect(last.content).toEqual([
      { type: 'text', text: 'and this?' },
      { type: 'image_url', image_url: { url: PNG, detail: 'auto' } }
    ])
    // A file part is refused with a 400 that names it, never dropped.
    const err = await client.chat.completions
      .create({
        model: 'hermes-agent',
        messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'f1' } }] }]
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(errorMessage(err)).toMatch(/files and documents are not supported/)
  })

  it('streams `: keepalive` comments while the provider is silent', async () => {
    const res = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'slow stream' }] })
    })
    const text = await res.text()
    expect(text).toContain(': keepalive\n\n')
    const content = text
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)).choices[0]?.delta?.content ?? '')
      .join('')
    expect(content).toBe('slowly: slow stream')
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  })

  it('14 concurrent requests on a slow provider: some 429 with Retry-After, the rest answered, no crash', async () => {
    const raw = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: KEY, maxRetries: 0 })
    let refused = 0
    const calls = Array.from({ length: 14 }, (_, i) =>
      raw.chat.completions
        .create({ model: 'hermes-agent', messages: [{ role: 'user', content: `held ${i}` }] })
        .withResponse()
        .then(() => ({ status: 200, retryAfter: null as string | null }))
        .catch((e: InstanceType<typeof OpenAI.APIError>) => {
          refused++
          return {
            status: e.status,
            retryAfter: e.headers?.get('retry-after') ?? null,
            type: (e.error as { type?: string } | undefined)?.type
          }
        })
    )
    // the provider answers once all 14 have been either refused or handed to it (or after 20 s: then it fails below)
    const deadline = Date.now() + 20_000
    while (refused + held.arrived < 14 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    held.release()
    const results = await Promise.all(calls)
    const limited = results.filter((r) => r.status === 429)
    expect(limited.length).toBe(4)
    expect(limited.every((r) => r.retryAfter === '1' && (r as { type?: string }).type === 'rate_limit_error')).toBe(
      true
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(10)
    expect(api.alive()).toBe(true)
    expect((await raw.models.list()).data[0]!.id).toBe('hermes-agent')
  })
})
