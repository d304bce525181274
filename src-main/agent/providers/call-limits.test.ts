// Provider call limits against a real local HTTP server speaking the OpenAI wire protocol.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviderClient, ProviderError, type ProviderClient, type RuntimeConfig } from './index'

type Route = (req: IncomingMessage, res: ServerResponse, n: number) => void
let server: Server
let baseUrl: string
let route: Route = () => undefined
let hits = 0

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`
const finish = () =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' })

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => route(req, res, ++hits))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(
  () =>
    new Promise<void>((r) => {
      server.close(() => r())
      server.closeAllConnections()
    })
)

const client = (limits: RuntimeConfig['limits']): ProviderClient =>
  createProviderClient({
    model: 'm',
    provider: 'custom',
    baseUrl,
    apiKey: 'k-test',
    apiMode: 'chat_completions',
    limits
  })

async function run(c: ProviderClient): Promise<{ text: string; error: ProviderError | null }> {
  let text = ''
  try {
    for await (const ev of c.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }))
      if (ev.type === 'text') text += ev.text
    return { text, error: null }
  } catch (err) {
    return { text, error: err as ProviderError }
  }
}

describe('provider call limits', () => {
  it('a provider that stalls after the headers is stopped by the inactivity timeout, with a clear message', async () => {
    hits = 0
    route = (_req, res) => sse(res) // headers, then silence
    const r = await run(client({ inactivityMs: 300, maxRetries: 0 }))
    expect(r.error).toBeInstanceOf(ProviderError)
    expect(r.error!.kind).toBe('timeout')
    expect(r.error!.message).toBe('the provider sent nothing for 0.3 s')
  })

  it('a provider that goes quiet mid-stream is stopped too, keeping what it sent', async () => {
    route = (_req, res) => {
      sse(res)
      res.write(chunk('partial '))
    }
    const r = await run(client({ inactivityMs: 300, maxRetries: 0 }))
    expect(r.text).toBe('partial ')
    expect(r.error?.message).toBe('the provider sent nothing for 0.3 s')
  })

  it('a provider that trickles bytes forever is stopped by the total cap', async () => {
    route = (_req, res) => {
      sse(res)
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(chunk('.'))), 50)
      res.on('close', () => clearInterval(t))
    }
    const r = await run(client({ inactivityMs: 1000, totalMs: 400, maxRetries: 0 }))
    expect(r.error?.kind).toBe('timeout')
    expect(r.error?.message).toMatch(/took longer than 0\.4 s/)
  })

  it('429 with a short Retry-After is retried and then succeeds', async () => {
    hits = 0
    route = (_req, res, n) => {
      if (n === 1)
        return void res
          .writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' })
          .end('{"error":{"message":"slow down"}}')
      sse(res)
      res.end(chunk('ok') + finish())
    }
    const r = await run(client({ maxRetries: 2 }))
    expect(r.error).toBeNull()
    expect(r.text).toBe('ok')
    expect(hits).toBe(2)
  })

  it('a Retry-After beyond the bound is not waited for: the 429 reaches the caller', async () => {
    hits = 0
    route = (_req, res) =>
      void res
        .writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' })
        .end('{"error":{"message":"come back later"}}')
    const r = await run(client({ maxRetries: 3, maxRetryWaitMs: 1000 }))
    expect(hits).toBe(1)
    expect(r.error?.status).toBe(429)
  })

  it('5xx is retried with backoff up to maxRetries', async () => {
    hits = 0
    route = (_req, res) =>
      void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}')
    const r = await run(client({ maxRetries: 2, maxRetryWaitMs: 50 }))
    expect(hits).toBe(3)
    expect(r.error?.status).toBe(503)
  })
})
