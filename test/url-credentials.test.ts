// Credentials outside the known secrets, through a real `caduceus serve`, on a home upstream wrote with a password in
// its base URL (golden: scripts/golden/billing_url.py): upstream stores `http://user:pass@host/v1` in
// billing_base_url and sends the userinfo as `Authorization: Basic …`. The same URL in config.yaml is a Caduceus
// turn's base URL: the turn reaches a provider that requires upstream's Basic header, stores the route as upstream
// does, and the password reaches no frame (Settings, session detail, costs, export), no log file, and a Settings
// save of the masked URL keeps the password in config.yaml. A provider echoing credential shapes of a value Caduceus
// never knew (another service's key in a query, a header dumped as JSON or a dict) is masked by shape alone.
import { createServer, type Server } from 'node:http'
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { startServe, type ServeProcess } from './helpers/serve-process'
import { connectCalls, type WsCalls } from './helpers/ws-calls'

const FIXTURE = join(__dirname, 'fixtures', 'upstream', 'billing-url')
const golden = JSON.parse(readFileSync(join(FIXTURE, 'golden.json'), 'utf8')) as {
  authorizations: string[]
  sessions: Array<[string, string]>
  session_model_usage: Array<[string, string]>
}
const PASSWORD = 'Pw9xQ2vLk7Zt4Rb8'
// Another service's key the provider echoes back: no known secret, no vendor prefix.
const OTHER = 'Hq3nW8cRt5Ym2Kv9Lx4Pd'
const KEY = 'zq8Hk2mP0vLx7Yt4Rb9Wn3EeQ1cVc'
let provider: Server
let port = 0
let host: ServeProcess
let ws: WsCalls
// What the provider saw: request line path and headers. It answers a completion only with upstream's Basic header.
const seen: Array<{ url: string; host: string; authorization: string }> = []
let echo = false
const sse = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`
const completion =
  sse({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }]
  }) +
  sse({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 }
  }) +
  'data: [DONE]\n\n'

const config = (baseUrl: string) =>
  [
    'model:',
    '  default: m',
    '  provider: custom',
    `  base_url: ${baseUrl}`,
    'provider_limits:',
    '  max_retries: 0',
    ''
  ].join('\n')

beforeAll(async () => {
  provider = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      seen.push({ url: req.url ?? '', host: req.headers.host ?? '', authorization: req.headers.authorization ?? '' })
      if (!echo) {
        if (req.headers.authorization !== golden.authorizations[0]) {
          res.writeHead(401, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: 'authorization required', type: 'auth' } }))
          return
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(completion)
        return
      }
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: {
            message:
              `upstream rejected GET https://tools.example.com/v1/search?api-key=${OTHER}&q=x with headers ` +
              `{"x-api-key": "${OTHER}", "authorization": "${OTHER}"}, {'client_secret': '${OTHER}'}, X-Api-Key=${OTHER}`,
            type: 'invalid_request_error'
          }
        })
      )
    })
  })
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r))
  port = (provider.address() as AddressInfo).port
  const home = join(mkdtempSync(join(tmpdir(), 'cad-urlcred-')), 'home')
  cpSync(FIXTURE, home, { recursive: true })
  writeFileSync(join(home, 'config.yaml'), config(`http://proxyuser:${PASSWORD}@127.0.0.1:${port}/v1`))
  writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${KEY}\n`, { mode: 0o600 })
  host = await startServe({ home })
  ws = await connectCalls(host)
}, 60_000)

afterAll(async () => {
  ws?.close()
  await host?.close()
  await new Promise<void>((r) => provider?.close(() => r()))
})

const send = (name: string, input: unknown) => ws.send(name, input)
const call = (name: string, input: unknown) => ws.call(name, input)
const turn = async (text: string) => (await ws.turn(text)).finished
function expectNowhere(secret: string): void {
  for (const f of ws.rawFrames) expect(f).not.toContain(secret)
  for (const f of readdirSync(host.logDir)) expect(readFileSync(join(host.logDir, f), 'utf8')).not.toContain(secret)
}

describe('credentials of no known secret, through a real serve', () => {
  it('upstream stored the base URL password in billing_base_url (golden)', () => {
    expect(golden.sessions[0]![1]).toContain(`:${PASSWORD}@`)
  })

  it('session detail, costs and an export show the stored endpoint with its password masked', async () => {
    const detail = await call('sessions.get', { profile: 'default', sessionId: 'S1' })
    expect(detail.usage.map((u: any) => u.baseUrl)).toEqual(['http://proxyuser:***@127.0.0.1:43210/v1'])
    await call('costs.session', { profile: 'default', sessionId: 'S1' })
    const out = await call('sessions.export', { profile: 'default', sessionId: 'S1' })
    expect(JSON.parse(out.content).billing_base_url).toBe('http://proxyuser:***@127.0.0.1:43210/v1')
    expectNowhere(PASSWORD)
  })

  it('Settings shows the base URL masked; saving it back unchanged keeps the password, editing around *** is refused', async () => {
    const masked = `http://proxyuser:***@127.0.0.1:${port}/v1`
    expect((await call('settings.get', { profile: 'default' })).baseUrl).toBe(masked)
    const saved = await call('settings.update', { profile: 'default', baseUrl: masked, model: 'm2' })
    expect(saved).toMatchObject({ baseUrl: masked, model: 'm2' })
    expect(readFileSync(join(host.root, 'config.yaml'), 'utf8')).toContain(`proxyuser:${PASSWORD}@127.0.0.1:${port}/v1`)
    const edited = await send('settings.update', { profile: 'default', baseUrl: `${masked}/extra` })
    expect(edited.ok).toBe(false)
    expect(edited.error).toMatchObject({ code: 'invalid_input', field: 'baseUrl' })
    expect(readFileSync(join(host.root, 'config.yaml'), 'utf8')).toContain(`proxyuser:${PASSWORD}@127.0.0.1:${port}/v1`)
    expectNowhere(PASSWORD)
  })

  it('a turn on the password URL sends Basic auth as upstream does and stores the URL as upstream does', async () => {
    const finished = await turn('hello')
    expect(finished.status).toBe('completed')
    const chat = seen.filter((r) => r.url.endsWith('/chat/completions'))
    expect(chat.length).toBeGreaterThan(0)
    for (const r of chat) {
      expect(r.authorization).toBe(golden.authorizations[0])
      expect(r.url).toBe('/v1/chat/completions')
      expect(r.host).toBe(`127.0.0.1:${port}`)
    }
    // The route is keyed as upstream keys it (same shape as its rows, with this server's port).
    const db = new Database(join(host.root, 'state.db'), { readonly: true })
    const asRecorded = (v: unknown) => String(v).replace(`:${port}/`, ':43210/')
    const sid = finished.sessionId as string
    const session = db.prepare('SELECT billing_base_url AS u FROM sessions WHERE id = ?').get(sid) as { u: string }
    const usage = db.prepare('SELECT billing_base_url AS u FROM session_model_usage WHERE session_id = ?').all(sid)
    db.close()
    expect(asRecorded(session.u)).toBe(golden.sessions[0]![1])
    expect(usage.map((u: any) => asRecorded(u.u))).toEqual(golden.session_model_usage.map((r) => r[1]))
    const masked = `http://proxyuser:***@127.0.0.1:${port}/v1`
    const detail = await call('sessions.get', { profile: 'default', sessionId: sid })
    expect(detail.usage.map((u: any) => u.baseUrl)).toEqual([masked])
    const out = await call('sessions.export', { profile: 'default', sessionId: sid })
    expect(out.content).not.toContain(PASSWORD)
    expect(JSON.parse(out.content).billing_base_url).toBe(masked)
    await call('costs.session', { profile: 'default', sessionId: sid })
    expectNowhere(PASSWORD)
    expectNowhere(golden.authorizations[0]!.split(' ')[1]!)
  })

  it('a provider echoing another key as ?api-key=, JSON headers, a dict and X-Api-Key=: masked by shape', async () => {
    echo = true
    writeFileSync(join(host.root, 'config.yaml'), config(`http://127.0.0.1:${port}/v1`))
    const finished = await turn('hello again')
    expect(finished.status).toBe('error')
    expect(finished.error).toMatch(/400/)
    expect(finished.error).toContain('api-key=***')
    expectNowhere(OTHER)
    expectNowhere(KEY)
  })
})
