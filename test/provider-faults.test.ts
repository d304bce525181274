// Issue 10 items 3 and 4 through a real `caduceus serve`: a provider that echoes an unshaped key in its error
// (the key reaches no log file, no event; logs are 0600 in a 0700 folder), a provider that stalls after the
// headers (provider_limits.inactivity_timeout: 2 in config.yaml ends the turn with "the provider sent nothing
// for 2 s"), and a provider whose reply is far over provider_limits.max_reply_chars (stored cut, with a marker).
import { createServer, type Server, type ServerResponse } from 'node:http'
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, type ServeProcess } from './helpers/serve-process'
import { connectCalls, type WsCalls } from './helpers/ws-calls'

// No known key shape (not sk-…, no Bearer, no KEY= around it): only redaction by value can catch it.
const KEY = 'zq8Hk2mP0vLx7Yt4Rb9Wn3EeQ1cVb'
const REPLY_CAP = 2000
let provider: Server
let host: ServeProcess
let ws: WsCalls

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`

/** Requests per message text that drops its stream before any text (`drop early`: the first 4, `drop always`: all). */
const drops = new Map<string, number>()

function answer(text: string, res: ServerResponse): void {
  if (text.includes('drop early') || text.includes('drop always')) {
    const n = (drops.get(text) ?? 0) + 1
    drops.set(text, n)
    if (text.includes('drop always') || n <= 4) {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const role = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] })}\n\n`
      return void res.write(role, () => setTimeout(() => res.socket?.destroy(), 20))
    }
  }
  if (text.includes('echo')) {
    res.writeHead(401, { 'content-type': 'application/json' })
    return void res.end(
      JSON.stringify({
        error: {
          message: `Incorrect API key provided: ${KEY}. Check the key ${KEY} and try again.`,
          type: 'invalid_request_error'
        }
      })
    )
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  if (text.includes('stall')) return // headers, then nothing ever again
  if (text.includes('big')) {
    for (let i = 0; i < 200; i++) res.write(chunk('x'.repeat(500)))
  } else res.write(chunk('fine'))
  res.end(
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`
  )
}

beforeAll(async () => {
  provider = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      let last = ''
      try {
        const msgs = JSON.parse(body).messages as Array<{ role: string; content: string }>
        last = msgs.filter((m) => m.role === 'user').at(-1)?.content ?? ''
      } catch {
        // not JSON
      }
      answer(last, res)
    })
  })
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r))
  const port = (provider.address() as AddressInfo).port
  host = await startServe()
  // Configure the profile now that the home exists (the host reads config and .env per turn / agent build).
  writeFileSync(
    join(host.root, 'config.yaml'),
    [
      'model:',
      '  default: m',
      '  provider: custom',
      `  base_url: http://127.0.0.1:${port}/v1`,
      'provider_limits:',
      '  inactivity_timeout: 2',
      `  max_reply_chars: ${REPLY_CAP}`,
      '  max_retries: 0',
      '  stream_retry_wait: 0.05',
      ''
    ].join('\n')
  )
  writeFileSync(join(host.root, '.env'), `OPENAI_API_KEY=${KEY}\n`, { mode: 0o600 })
  // A profile whose wait before asking again is far longer than any test runs: only Stop can end it.
  const slow = join(host.root, 'profiles', 'slow')
  mkdirSync(slow, { recursive: true })
  writeFileSync(
    join(slow, 'config.yaml'),
    `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:${port}/v1\nprovider_limits:\n  stream_retry_wait: 600\n`
  )
  writeFileSync(join(slow, '.env'), `OPENAI_API_KEY=${KEY}\n`, { mode: 0o600 })
  ws = await connectCalls(host)
}, 60_000)

afterAll(async () => {
  ws?.close()
  await host?.close()
  await new Promise<void>((r) => provider?.close(() => r()))
})

const call = (name: string, input: unknown) => ws.call(name, input)
const turn = (text: string) => ws.turn(text)

describe('provider faults through a real serve', () => {
  it('a provider echoing an unshaped key: the turn says why, and the key is in no log, event or result', async () => {
    const { finished } = await turn('please echo')
    expect(finished.status).toBe('error')
    expect(finished.error).toMatch(/401/)
    expect(finished.error).not.toContain(KEY)
    for (const f of ws.rawFrames) expect(f).not.toContain(KEY)

    const files = readdirSync(host.logDir)
    expect(files).toContain('errors.log')
    for (const f of files) {
      const path = join(host.logDir, f)
      expect(readFileSync(path, 'utf8')).not.toContain(KEY)
      expect(statSync(path).mode & 0o777).toBe(0o600)
    }
    expect(statSync(host.logDir).mode & 0o777).toBe(0o700)
    // The failure itself is logged (masked), on one line.
    expect(readFileSync(join(host.logDir, 'errors.log'), 'utf8')).toMatch(/Incorrect API key provided: \*\*\*/)
  }, 60_000)

  it('a provider that stalls after the headers: the turn ends with "the provider sent nothing for 2 s"', async () => {
    const started = Date.now()
    const { finished } = await turn('stall now')
    console.log(`stalled provider: turn ended after ${Date.now() - started} ms (inactivity_timeout 2 s)`)
    expect(finished.status).toBe('error')
    expect(finished.error).toContain('the provider sent nothing for 2 s')
    expect(host.alive()).toBe(true)
  }, 60_000)

  it('a stream that drops before any text: asked again as upstream does, each retry shown on the turn', async () => {
    const { finished, sessionId } = await turn('please drop early')
    expect(finished.status).toBe('completed')
    expect(drops.get('please drop early')).toBe(5)
    const notices = ws.frames
      .filter((f: any) => f.event === 'turn.delta' && f.payload.turnId === finished.turnId)
      .filter((f: any) => f.payload.kind === 'notice')
      .map((f: any) => f.payload.text as string)
    expect(notices.map((t) => t.replace(/in \d+ ms/, 'in N ms'))).toEqual([
      "The provider's stream broke off before any text; asking for the reply again now (attempt 2 of 18).",
      "The provider's stream broke off before any text; asking for the reply again now (attempt 3 of 18).",
      "The provider's stream broke off before any text; asking for the reply again in N ms (attempt 4 of 18).",
      "The provider's stream broke off before any text; asking for the reply again now (attempt 5 of 18)."
    ])
    const page = await call('sessions.messages', { profile: 'default', sessionId, limit: 50 })
    expect((page.items as Array<{ role: string; content: string }>).map((m) => [m.role, m.content])).toEqual([
      ['user', 'please drop early'],
      ['assistant', 'fine']
    ])
  }, 60_000)

  it('Stop during the wait before asking again ends the turn at once', async () => {
    const handle = await call('sessions.start', { profile: 'slow', text: 'drop always' })
    const frame = (pick: (f: any) => boolean) =>
      ws.frames.find((f: any) => f.payload?.turnId === handle.turnId && pick(f))
    while (!frame((f) => f.event === 'turn.delta' && / in \d/.test(f.payload.text ?? '')))
      await new Promise((r) => setTimeout(r, 20))
    await call('turns.stop', { turnId: handle.turnId })
    let finished: any
    while (!(finished = frame((f) => f.event === 'turn.finished'))) await new Promise((r) => setTimeout(r, 20))
    expect(finished.payload.status).toBe('interrupted')
    expect(drops.get('drop always')).toBe(3)
  }, 60_000)

  it('a reply over max_reply_chars is stored cut at the cap with a marker', async () => {
    const { finished, sessionId } = await turn('something big please')
    expect(finished.status).toBe('completed')
    const page = await call('sessions.messages', { profile: 'default', sessionId, limit: 50 })
    const reply = (page.items as Array<{ role: string; content: string | null }>)
      .filter((m) => m.role === 'assistant')
      .at(-1)!
    expect(reply.content!.startsWith('x'.repeat(REPLY_CAP))).toBe(true)
    expect(reply.content).toContain('[reply truncated: the provider sent more than 2000 characters')
    expect(reply.content!.length).toBeLessThan(REPLY_CAP + 200)
  }, 60_000)
})
