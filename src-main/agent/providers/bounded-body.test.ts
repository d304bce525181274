// Reply-size limits below the SDK, against a real local HTTP server sending hostile bodies of a few MB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { boundedBody } from './bounded-body'
import { createProviderClient, type ProviderClient, type RuntimeConfig, type StreamEvent } from './index'
import { chunk, pour, startRouteServer, type RouteServer } from './test-fixtures/route-server'

let provider: RouteServer
beforeAll(async () => {
  provider = await startRouteServer()
})
afterAll(() => provider.close())

const client = (apiMode: RuntimeConfig['apiMode'], limits: RuntimeConfig['limits']): ProviderClient =>
  createProviderClient({
    model: 'm',
    provider: 'custom',
    baseUrl: provider.baseUrl,
    apiKey: 'k',
    apiMode,
    maxRetries: 0,
    limits
  })

async function run(c: ProviderClient) {
  const events: StreamEvent[] = []
  try {
    for await (const ev of c.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })) events.push(ev)
    return { events, error: null }
  } catch (err) {
    return { events, error: err as Error }
  }
}

describe('provider reply limits (provider_limits.max_response_bytes / max_line_bytes)', () => {
  it('an SSE reply that is one 5 MB line is cut at max_line_bytes with a clear error', async () => {
    provider.route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      pour(res, 'data: {"choices":[{"delta":{"content":"', 5 << 20)
    }
    const r = await run(client('chat_completions', { maxLineBytes: 1 << 20 }))
    expect(r.error?.message).toBe(
      "the provider's reply was cut: it sent a line or event longer than 1 MB (provider_limits.max_line_bytes)"
    )
  })

  it('a 5 MB JSON body (no SSE) is cut too, for the Anthropic client as well', async () => {
    provider.route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      pour(res, '{"content":[{"type":"text","text":"', 5 << 20)
    }
    const r = await run(client('anthropic_messages', { maxLineBytes: 2 << 20 }))
    expect(r.error?.message).toMatch(/longer than 2 MB \(provider_limits\.max_line_bytes\)/)
  })

  it('many short events past max_response_bytes end the reply, keeping what streamed', async () => {
    provider.route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      pour(res, '', 3 << 20, chunk({ content: 'abc' }))
    }
    const r = await run(client('chat_completions', { maxResponseBytes: 1 << 20 }))
    expect(r.error?.message).toBe("the provider's reply was cut: it exceeded 1 MB (provider_limits.max_response_bytes)")
    expect(r.events.filter((e) => e.type === 'text').length).toBeGreaterThan(1000)
  })

  it('an error body over the limit is cut as well (the SDK reads error bodies whole)', async () => {
    provider.route = (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      pour(res, '{"error":{"message":"', 3 << 20)
    }
    const r = await run(client('chat_completions', { maxResponseBytes: 1 << 20 }))
    expect(r.error?.message).toMatch(/exceeded 1 MB/)
  })

  it('tool-call arguments over max_tool_args_chars are kept as a short marker, with their length', async () => {
    const args = JSON.stringify({ text: 'y'.repeat(2 << 20) })
    provider.route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'write', arguments: '' } }] }))
      for (let i = 0; i < args.length; i += 60_000)
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 60_000) } }] }))
      res.end(chunk({}) + 'data: [DONE]\n\n')
    }
    const r = await run(client('chat_completions', { maxToolArgsChars: 100_000 }))
    expect(r.error).toBeNull()
    const done = r.events.find((e) => e.type === 'done')
    const call = done?.type === 'done' ? done.response.toolCalls[0] : undefined
    expect(call?.cutFrom).toBe(args.length)
    expect(call!.arguments.length).toBeLessThan(200)
    expect(JSON.parse(call!.arguments)._cut).toMatch(/max_tool_args_chars \(100000\)/)
  })
})

describe('boundedBody re-cuts at event boundaries', () => {
  it('hands on whole events only, byte for byte, whatever the chunking (\\n\\n, \\r\\r, \\r\\n\\r\\n)', async () => {
    const text = 'data: a\n\ndata: bb\r\rdata: ccc\r\n\r\ndata: d\nid: 1\n\ndata: tail'
    const bytes = new TextEncoder().encode(text)
    for (const size of [1, 2, 3, 5, 64]) {
      let at = 0
      const src = new ReadableStream<Uint8Array>({
        pull(ctl) {
          if (at >= bytes.length) return ctl.close()
          ctl.enqueue(bytes.slice(at, at + size))
          at += size
        }
      })
      const out: string[] = []
      const reader = boundedBody(
        src,
        { maxResponseBytes: 0, maxLineBytes: 0 },
        () => {},
        () => {}
      ).getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(new TextDecoder().decode(r.value))
      expect(out.join('')).toBe(text)
      for (const piece of out.slice(0, -1)) expect(piece).toMatch(/(\n\n|\r\r|\r\n\r\n)$/)
      expect(out.at(-1)).toBe('data: tail')
    }
  })
})
