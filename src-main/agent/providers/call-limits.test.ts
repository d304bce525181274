// Provider call limits against a real local HTTP server speaking the OpenAI wire protocol.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CallWatch, resolveCallLimits } from './call-limits'
import { createProviderClient, ProviderError, type ProviderClient, type RuntimeConfig } from './index'
import { chunk as event, sse, startRouteServer, type RouteServer } from './test-fixtures/route-server'

const chunk = (content: string) => event({ content })
const finish = () => `${event({}, 'stop')}data: [DONE]\n\n`

let provider: RouteServer
beforeAll(async () => {
  provider = await startRouteServer()
})
afterAll(() => provider.close())

const client = (limits: RuntimeConfig['limits']): ProviderClient =>
  createProviderClient({
    model: 'm',
    provider: 'custom',
    baseUrl: provider.baseUrl,
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
    provider.hits = 0
    provider.route = (_req, res) => sse(res) // headers, then silence
    const r = await run(client({ inactivityMs: 300, maxRetries: 0 }))
    expect(r.error).toBeInstanceOf(ProviderError)
    expect(r.error!.kind).toBe('timeout')
    expect(r.error!.message).toBe('the provider sent nothing for 0.3 s')
  })

  it('a provider that goes quiet mid-stream is stopped too, keeping what it sent', async () => {
    provider.route = (_req, res) => {
      sse(res)
      res.write(chunk('partial '))
    }
    const r = await run(client({ inactivityMs: 300, maxRetries: 0 }))
    expect(r.text).toBe('partial ')
    expect(r.error?.message).toBe('the provider sent nothing for 0.3 s')
  })

  it('a provider that trickles bytes forever is stopped by the total cap', async () => {
    provider.route = (_req, res) => {
      sse(res)
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(chunk('.'))), 50)
      res.on('close', () => clearInterval(t))
    }
    const r = await run(client({ inactivityMs: 1000, totalMs: 400, maxRetries: 0 }))
    expect(r.error?.kind).toBe('timeout')
    expect(r.error?.message).toMatch(/took longer than 0\.4 s/)
  })

  it('429 with a short Retry-After is retried and then succeeds', async () => {
    provider.hits = 0
    provider.route = (_req, res, n) => {
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
    expect(provider.hits).toBe(2)
  })

  it('a Retry-After beyond the bound is not waited for: the 429 reaches the caller', async () => {
    provider.hits = 0
    provider.route = (_req, res) =>
      void res
        .writeHead(429, { 'retry-after': '120', 'content-type': 'application/json' })
        .end('{"error":{"message":"come back later"}}')
    const r = await run(client({ maxRetries: 3, maxRetryWaitMs: 1000 }))
    expect(provider.hits).toBe(1)
    expect(r.error?.status).toBe(429)
  })

  it('5xx is retried with backoff up to maxRetries', async () => {
    provider.hits = 0
    provider.route = (_req, res) =>
      void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}')
    const r = await run(client({ maxRetries: 2, maxRetryWaitMs: 50 }))
    expect(provider.hits).toBe(3)
    expect(r.error?.status).toBe(503)
  })

  it.each(['chat_completions', 'anthropic_messages'] as const)(
    "%s: the runtime's own maxRetries stands over its limits (the scripted provider asks for none)",
    async (apiMode) => {
      provider.hits = 0
      provider.route = (_req, res) =>
        void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}')
      const c = createProviderClient({
        model: 'm',
        provider: 'custom',
        baseUrl: provider.baseUrl,
        apiKey: 'k-test',
        apiMode,
        maxRetries: 0,
        limits: { maxRetries: 2, maxRetryWaitMs: 50 }
      })
      expect((await run(c)).error?.status).toBe(503)
      expect(provider.hits).toBe(1)
    }
  )

  it('Stop pressed while a retry is being set up ends the call at once, not after the Retry-After wait', async () => {
    provider.hits = 0
    provider.route = (_req, res) =>
      void res.writeHead(429, { 'retry-after': '5', 'content-type': 'application/json' }).end('{"error":{}}')
    const stop = new AbortController()
    // The real request goes out; Stop lands the moment its 429 is back, before the retry wait begins.
    const watch = new CallWatch(resolveCallLimits({ maxRetries: 2 }), stop.signal, async (input, init) => {
      const res = await fetch(input, init)
      stop.abort(new Error('stopped by user'))
      return res
    })
    const started = Date.now()
    const err = await watch.fetch(`${provider.baseUrl}/chat/completions`, { method: 'POST' }).catch((e: Error) => e)
    watch.done()
    expect(Date.now() - started).toBeLessThan(1000)
    expect((err as Error).message).toBe('stopped by user')
    expect(provider.hits).toBe(1)
  })
})
