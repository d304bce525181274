// Provider replies that bend the wire protocols, against a real local HTTP server answering with raw SSE bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createProviderClient,
  ProviderError,
  type AgentMessage,
  type ChatRequest,
  type ProviderResponse,
  type RuntimeConfig
} from './index'
import { startScriptedProvider } from '../scripted'
import { chunk, sse, startRouteServer, type Route, type RouteServer } from './test-fixtures/route-server'

let provider: RouteServer
beforeAll(async () => {
  provider = await startRouteServer()
})
afterAll(() => provider.close())

async function call(
  route: Route,
  opts: Partial<RuntimeConfig> = {},
  req: Partial<ChatRequest> = {}
): Promise<{ done: ProviderResponse | null; error: ProviderError | null; ms: number }> {
  provider.hits = 0
  provider.route = route
  const client = createProviderClient({
    model: 'm',
    provider: 'custom',
    baseUrl: provider.baseUrl,
    apiKey: 'k-test',
    apiMode: 'chat_completions',
    ...opts
  })
  const t0 = Date.now()
  let done: ProviderResponse | null = null
  try {
    for await (const ev of client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...req }))
      if (ev.type === 'done') done = ev.response
    return { done, error: null, ms: Date.now() - t0 }
  } catch (err) {
    return { done, error: err as ProviderError, ms: Date.now() - t0 }
  }
}

/** Answers with these SSE bytes and ends the body. */
const reply =
  (...events: string[]): Route =>
  (_req, res) => {
    sse(res)
    res.end(events.join(''))
  }
const DONE = 'data: [DONE]\n\n'
const toolCalls = (...calls: Array<Record<string, unknown>>) => chunk({ tool_calls: calls })
const fn = (name: string | undefined, args: string) => ({ ...(name ? { name } : {}), arguments: args })

/** One Anthropic SSE event. */
const ev = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`
const messageStart = ev({ type: 'message_start', message: { model: 'claude-x', usage: { input_tokens: 5 } } })
const messageEnd = (stop: string) =>
  ev({ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 3 } }) +
  ev({ type: 'message_stop' })

describe('OpenAI-compatible tool-call fragments', () => {
  it('calls that all reuse index 0 with new ids (Ollama) stay separate calls', async () => {
    const { done, error } = await call(
      reply(
        toolCalls({ index: 0, id: 'call_a', type: 'function', function: fn('read_file', '{"path":') }),
        toolCalls({ index: 0, function: fn(undefined, '"a.txt"}') }),
        toolCalls({ index: 0, id: 'call_b', type: 'function', function: fn('search', '{"query":') }),
        toolCalls({ index: 0, function: fn(undefined, '"b"}') }),
        chunk({}, 'tool_calls'),
        DONE
      )
    )
    expect(error).toBeNull()
    expect(done!.toolCalls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_b', name: 'search', arguments: '{"query":"b"}' }
    ])
  })

  it('whole calls each sent at index 0 with their own id stay separate calls', async () => {
    const { done } = await call(
      reply(
        toolCalls({ index: 0, id: 'c1', function: fn('read_file', '{"path":"a.txt"}') }),
        toolCalls({ index: 0, id: 'c2', function: fn('search', '{"query":"b"}') }),
        chunk({}, 'tool_calls'),
        DONE
      )
    )
    expect(done!.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['c1', 'read_file', '{"path":"a.txt"}'],
      ['c2', 'search', '{"query":"b"}']
    ])
  })

  it('an id repeated on every fragment without an index continues the same call', async () => {
    const { done } = await call(
      reply(
        toolCalls({ id: 'call_1', type: 'function', function: fn('read_file', '{"pa') }),
        toolCalls({ id: 'call_1', type: 'function', function: fn(undefined, 'th":"x"}') }),
        toolCalls({ id: 'call_2', type: 'function', function: fn('search', '{"query":"y"}') }),
        chunk({}, 'tool_calls'),
        DONE
      )
    )
    expect(done!.toolCalls).toEqual([
      { id: 'call_1', name: 'read_file', arguments: '{"path":"x"}' },
      { id: 'call_2', name: 'search', arguments: '{"query":"y"}' }
    ])
  })

  it('indexed calls streamed interleaved still assemble by index', async () => {
    const { done } = await call(
      reply(
        toolCalls({ index: 0, id: 'a', function: fn('one', '{"x":') }),
        toolCalls({ index: 1, id: 'b', function: fn('two', '{"y":') }),
        toolCalls({ index: 0, function: fn(undefined, '1}') }),
        toolCalls({ index: 1, id: 'b', function: fn(undefined, '2}') }),
        chunk({}, 'tool_calls'),
        DONE
      )
    )
    expect(done!.toolCalls).toEqual([
      { id: 'a', name: 'one', arguments: '{"x":1}' },
      { id: 'b', name: 'two', arguments: '{"y":2}' }
    ])
  })
})

describe('OpenAI-compatible reasoning fields', () => {
  it('an empty reasoning_content beside reasoning keeps the reasoning', async () => {
    const { done } = await call(
      reply(
        chunk({ reasoning_content: '', reasoning: 'think ' }),
        chunk({ reasoning_content: '', reasoning: 'hard' }),
        chunk({ content: 'ok' }, 'stop'),
        DONE
      )
    )
    expect(done!.reasoning).toBe('think hard')
    expect(done!.text).toBe('ok')
  })
})

describe('retries', () => {
  const failThenOk =
    (status: number, headers: Record<string, string> = {}): Route =>
    (_req, res, n) => {
      if (n === 1) {
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '10', ...headers })
        res.end('{"error":{"message":"busy"}}')
        return
      }
      sse(res)
      res.end(chunk({ content: 'ok' }, 'stop') + DONE)
    }

  it.each([529, 520, 521, 522, 523, 524, 501])('HTTP %i is retried', async (status) => {
    const r = await call(failThenOk(status), { maxRetries: 2 })
    expect(r.error).toBeNull()
    expect(r.done!.text).toBe('ok')
    expect(provider.hits).toBe(2)
  })

  it('Anthropic 529 "overloaded" is retried', async () => {
    const route: Route = (req, res, n) => {
      if (n === 1) {
        res.writeHead(529, { 'content-type': 'application/json', 'retry-after-ms': '10' })
        res.end('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
        return
      }
      sse(res)
      res.end(
        messageStart +
          ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
          ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }) +
          messageEnd('end_turn')
      )
    }
    const r = await call(route, { apiMode: 'anthropic_messages', maxRetries: 2 })
    expect(r.error).toBeNull()
    expect(r.done!.text).toBe('ok')
    expect(provider.hits).toBe(2)
  })

  it('x-should-retry: false stops a retry the status would allow; true retries a status it would not', async () => {
    const no = await call(failThenOk(503, { 'x-should-retry': 'false' }), { maxRetries: 2 })
    expect(no.error?.status).toBe(503)
    expect(provider.hits).toBe(1)
    const yes = await call(failThenOk(400, { 'x-should-retry': 'true' }), { maxRetries: 2 })
    expect(yes.error).toBeNull()
    expect(provider.hits).toBe(2)
  })

  it('a 400 without the header is not retried, and a 529 asking for a wait past the bound is not waited for', async () => {
    const bad = await call(failThenOk(400), { maxRetries: 2 })
    expect(bad.error?.status).toBe(400)
    expect(provider.hits).toBe(1)
    const long = await call(failThenOk(529, { 'retry-after-ms': '', 'retry-after': '120' }), { maxRetries: 2 })
    expect(long.error?.status).toBe(529)
    expect(provider.hits).toBe(1)
  })
})

describe('a server that keeps the connection open after the reply is complete', () => {
  /** Writes the events and never ends the body; resolves `closed` when the client goes away. */
  function holdOpen(events: string): { route: Route; closed: Promise<void> } {
    let onClose!: () => void
    const closed = new Promise<void>((r) => (onClose = r))
    return {
      closed,
      route: (_req, res) => {
        sse(res)
        res.write(events)
        res.on('close', onClose)
      }
    }
  }

  it('OpenAI-compatible: the reply is returned at [DONE] and the body closed', async () => {
    const { route, closed } = holdOpen(chunk({ content: 'complete' }, 'stop') + DONE)
    const r = await call(route, { limits: { inactivityMs: 400 }, maxRetries: 0 })
    expect(r.error).toBeNull()
    expect(r.done!.text).toBe('complete')
    expect(r.ms).toBeLessThan(400)
    await closed
  })

  it('Anthropic: the reply is returned at message_stop and the body closed', async () => {
    const { route, closed } = holdOpen(
      messageStart +
        ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'complete' } }) +
        ev({ type: 'content_block_stop', index: 0 }) +
        messageEnd('end_turn')
    )
    const r = await call(route, { apiMode: 'anthropic_messages', limits: { inactivityMs: 400 }, maxRetries: 0 })
    expect(r.error).toBeNull()
    expect(r.done!.text).toBe('complete')
    expect(r.ms).toBeLessThan(400)
    await closed
  })
})

describe('Anthropic tool calls', () => {
  it('arguments given whole in content_block_start, with no input_json_delta, are kept', async () => {
    const input = { city: 'Oslo', days: 2 }
    const { done } = await call(
      reply(
        messageStart,
        ev({
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input }
        }),
        ev({ type: 'content_block_stop', index: 0 }),
        ev({
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} }
        }),
        ev({
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"tz":"UTC"}' }
        }),
        ev({ type: 'content_block_stop', index: 1 }),
        messageEnd('tool_use')
      ),
      { apiMode: 'anthropic_messages' }
    )
    expect(done!.toolCalls).toEqual([
      { id: 'toolu_1', name: 'get_weather', arguments: JSON.stringify(input) },
      { id: 'toolu_2', name: 'get_time', arguments: '{"tz":"UTC"}' }
    ])
  })

  it('tool-call ids from other providers are rewritten to ids Anthropic accepts, pairs kept, distinct ids apart', async () => {
    const server = await startScriptedProvider({ script: [{ text: 'ok' }] })
    try {
      const client = createProviderClient({
        model: 'm',
        provider: 'custom',
        baseUrl: server.baseUrl,
        apiMode: 'anthropic_messages',
        maxRetries: 0
      })
      const ids = ['functions.get_weather:0', 'functions_get_weather_0', 'functions.get_weather:1', 'toolu_ok-1']
      const messages: AgentMessage[] = [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'get_weather', arguments: '{}' } }))
        },
        ...ids.map((id): AgentMessage => ({ role: 'tool', content: `r ${id}`, tool_call_id: id })),
        { role: 'user', content: 'thanks' }
      ]
      for await (const e of client.stream({ model: 'm', messages })) void e
      const sent = server.requests[0]!.body.messages as Array<{ content: Array<Record<string, string>> }>
      const used = sent[1]!.content.map((b) => b.id)
      const answered = sent[2]!.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id)
      for (const id of used) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/)
      expect(answered).toEqual(used)
      expect(new Set(used).size).toBe(ids.length)
      expect(used[3]).toBe('toolu_ok-1') // a valid id is sent as it is
    } finally {
      await server.close()
    }
  })
})

describe('OpenAI-compatible message sequence', () => {
  // Upstream's agent runs consecutive user messages together before each call (repair_message_sequence): chat templates
  // that require alternating roles refuse two user turns in a row (a failed turn's message, then the next; a chat UI's
  // "Continue", whose unfinished reply is the user's message after the question).
  it('sends consecutive text user messages as one, a blank line apart; messages with parts stay apart', async () => {
    const png = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } } as const
    const messages: AgentMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'tell me a story' },
      { role: 'user', content: 'Once upon a time' },
      { role: 'assistant', content: 'there was' },
      { role: 'user', content: '' },
      { role: 'user', content: 'more' },
      { role: 'user', content: 'look', parts: [{ type: 'text', text: 'look' }, png] },
      { role: 'user', content: 'and this' }
    ]
    const r = await call(reply(chunk({ content: 'ok' }, 'stop'), DONE), {}, { messages })
    expect(r.error).toBeNull()
    const sent = (JSON.parse(provider.bodies.at(-1)!) as { messages: Array<{ role: string; content: unknown }> })
      .messages
    expect(sent.map((m) => [m.role, typeof m.content === 'string' ? m.content : 'parts'])).toEqual([
      ['system', 'sys'],
      ['user', 'tell me a story\n\nOnce upon a time'],
      ['assistant', 'there was'],
      ['user', 'more'],
      ['user', 'parts'],
      ['user', 'and this']
    ])
  })
})
