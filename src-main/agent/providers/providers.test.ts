import { afterEach, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startScriptedProvider, type ScriptedProvider, type ScriptReply } from '../scripted'
import {
  createProviderClient,
  ProviderError,
  type ChatRequest,
  type ProviderResponse,
  type RuntimeConfig,
  type StreamEvent
} from './index'
import { splitUrlCredentials } from './url-auth'
import { errorMessage } from '@shared/contract/errors'

let server: ScriptedProvider | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

async function run(
  script: ScriptReply[],
  apiMode: RuntimeConfig['apiMode'] = 'chat_completions',
  req?: Partial<ChatRequest>
) {
  server = await startScriptedProvider({ script })
  const client = createProviderClient({
    model: 'test-model',
    provider: 'custom',
    baseUrl: server.baseUrl,
    apiKey: 'sk-test-secret-123456',
    apiMode,
    maxRetries: 0
  })
  const events: StreamEvent[] = []
  let done: ProviderResponse | null = null
  for await (const ev of client.stream({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }], ...req })) {
    events.push(ev)
    if (ev.type === 'done') done = ev.response
  }
  return { events, done: done! }
}

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'lookup',
      description: 'look up',
      parameters: { type: 'object', properties: { q: { type: 'string' } } }
    }
  }
]

describe('OpenAI-compatible streaming', () => {
  it('streams text and reasoning deltas and reports usage incl. cache and reasoning tokens', async () => {
    const { events, done } = await run([
      {
        reasoning: 'thinking hard',
        text: 'Hello there, friend',
        usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 40, reasoningTokens: 5 }
      }
    ])
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1)
    expect(done.text).toBe('Hello there, friend')
    expect(done.reasoning).toBe('thinking hard')
    expect(done.finishReason).toBe('stop')
    expect(done.usage).toEqual({
      inputTokens: 60,
      outputTokens: 20,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      reasoningTokens: 5
    })
    expect(server!.requests[0]!.body.stream).toBe(true)
    expect(server!.requests[0]!.body.stream_options).toEqual({ include_usage: true })
  })

  it('splits cache reads and writes out of prompt tokens and reads junk usage as zeros', async () => {
    const usage = { promptTokens: 100, completionTokens: 10, cachedTokens: 30, cacheWriteTokens: 5, reasoningTokens: 4 }
    expect((await run([{ text: 'ok', usage }])).done.usage).toEqual({
      inputTokens: 65,
      outputTokens: 10,
      cacheReadTokens: 30,
      cacheWriteTokens: 5,
      reasoningTokens: 4
    })
    await server!.close()
    // A provider that sends a non-number and a negative count on the wire.
    const junk = { promptTokens: 'x' as unknown as number, completionTokens: -3 }
    expect((await run([{ text: 'ok', usage: junk }])).done.usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0
    })
  })

  it('assembles tool-call deltas into complete calls', async () => {
    const { events, done } = await run(
      [
        {
          toolCalls: [
            { name: 'lookup', arguments: { q: 'alpha beta gamma' }, id: 'c1' },
            { name: 'lookup', arguments: { q: 'delta' } }
          ]
        }
      ],
      'chat_completions',
      { tools }
    )
    expect(events.filter((e) => e.type === 'tool_call_start').map((e) => (e as { name: string }).name)).toEqual([
      'lookup',
      'lookup'
    ])
    expect(done.toolCalls).toHaveLength(2)
    expect(done.toolCalls[0]).toEqual({
      id: 'c1',
      name: 'lookup',
      arguments: JSON.stringify({ q: 'alpha beta gamma' })
    })
    expect(JSON.parse(done.toolCalls[1]!.arguments)).toEqual({ q: 'delta' })
    expect(done.finishReason).toBe('tool_calls')
    expect(server!.requests[0]!.body.tools[0].function.name).toBe('lookup')
  })

  it('malformed SSE JSON, a bad choices field, garbage and HTTP 500 are ProviderErrors without the key', async () => {
    for (const [reply, kind] of [
      [{ text: 'a', malformed: 'bad-json' }, 'malformed'],
      [{ malformed: 'bad-choices' }, 'malformed'],
      [{ malformed: 'garbage' }, 'malformed'],
      [{ error: 500 }, 'http']
    ] as const) {
      const err = await run([reply as ScriptReply]).then(
        () => null,
        (e: unknown) => e
      )
      expect(err).toBeInstanceOf(ProviderError)
      expect((err as ProviderError).kind).toBe(kind)
      expect(errorMessage(err)).not.toContain('sk-test-secret')
      await server!.close()
      server = null
    }
  })

  it('abort ends the stream with an aborted error', async () => {
    server = await startScriptedProvider({ script: [{ text: 'partial', stall: true }] })
    const client = createProviderClient({
      model: 'm',
      provider: 'custom',
      baseUrl: server.baseUrl,
      apiMode: 'chat_completions',
      maxRetries: 0
    })
    const ac = new AbortController()
    const seen: string[] = []
    const err = await (async () => {
      for await (const ev of client.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, ac.signal)) {
        if (ev.type === 'text') {
          seen.push(ev.text)
          ac.abort()
        }
      }
    })().then(
      () => null,
      (e: unknown) => e
    )
    expect(seen.length).toBeGreaterThan(0)
    expect((err as ProviderError).kind).toBe('aborted')
  })

  it('rejects an invalid base URL as a config error', () => {
    expect(() =>
      createProviderClient({ model: 'm', provider: 'x', baseUrl: 'not a url', apiMode: 'chat_completions' })
    ).toThrow(ProviderError)
  })
})

describe('Anthropic Messages streaming', () => {
  it('streams thinking + text, converts tools, and reports cache usage', async () => {
    const { events, done } = await run(
      [
        {
          reasoning: 'let me think',
          text: 'Answer here',
          usage: { promptTokens: 300, completionTokens: 30, cachedTokens: 100, cacheWriteTokens: 50 }
        }
      ],
      'anthropic_messages',
      {
        tools,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' }
        ],
        reasoning: { effort: 'low' }
      }
    )
    expect(events.some((e) => e.type === 'reasoning')).toBe(true)
    expect(done.text).toBe('Answer here')
    expect(done.reasoning).toBe('let me think')
    expect(done.thinkingBlocks).toEqual([{ type: 'thinking', thinking: 'let me think', signature: 'sig-scripted' }])
    expect(done.usage).toEqual({
      inputTokens: 150,
      outputTokens: 30,
      cacheReadTokens: 100,
      cacheWriteTokens: 50,
      reasoningTokens: 0
    })
    const body = server!.requests[0]!.body
    expect(server!.requests[0]!.path).toBe('/v1/messages')
    expect(body.system).toBe('be brief')
    expect(body.tools[0]).toMatchObject({ name: 'lookup', input_schema: { type: 'object' } })
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    expect(body.max_tokens).toBeGreaterThan(2048)
  })

  it('assembles tool_use blocks and maps stop reasons', async () => {
    const { done } = await run(
      [{ toolCalls: [{ name: 'lookup', arguments: { q: 'x y z' }, id: 'toolu_1' }] }],
      'anthropic_messages',
      { tools }
    )
    expect(done.toolCalls).toEqual([{ id: 'toolu_1', name: 'lookup', arguments: JSON.stringify({ q: 'x y z' }) }])
    expect(done.finishReason).toBe('tool_calls')
  })

  it('an HTTP error is a ProviderError', async () => {
    const err = await run([{ error: 529 }], 'anthropic_messages').then(
      () => null,
      (e: unknown) => e
    )
    expect((err as ProviderError).kind).toBe('http')
    expect((err as ProviderError).status).toBe(529)
  })
})

describe('a base URL with credentials (a gateway behind basic auth)', () => {
  // Upstream's client sends the userinfo as this Basic header in place of the Bearer key (golden: billing_url.py).
  const golden = JSON.parse(
    readFileSync(join(__dirname, '../../../test/fixtures/upstream/billing-url/golden.json'), 'utf8')
  ) as { authorizations: string[]; agent_base_url: string }
  const expected = golden.authorizations[0]!

  it.each(['chat_completions', 'anthropic_messages'] as const)(
    '%s: sends the userinfo as upstream does, never in the request URL',
    async (apiMode) => {
      server = await startScriptedProvider({ script: [{ text: 'ok' }], requireAuthorization: expected })
      const [user, rest] = golden.agent_base_url.replace('http://', '').split('@') as [string, string]
      expect(rest.startsWith('127.0.0.1:43210/')).toBe(true)
      const client = createProviderClient({
        model: 'm',
        provider: 'custom',
        baseUrl: server.baseUrl.replace('http://', `http://${user}@`),
        apiKey: 'sk-test-secret-123456',
        apiMode,
        maxRetries: 0
      })
      let done: ProviderResponse | null = null
      for await (const ev of client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }))
        if (ev.type === 'done') done = ev.response
      expect(done!.text).toBe('ok')
      expect(server.requests.map((r) => r.path)).toEqual([
        apiMode === 'chat_completions' ? '/v1/chat/completions' : '/v1/messages'
      ])
    }
  )
})

describe('splitUrlCredentials', () => {
  // Header values as upstream's HTTP client (httpx) builds them for these URLs: percent-decoded, UTF-8, and a bare
  // user name with an empty password.
  it.each([
    ['http://us%20er:p%40ss@h/v1', 'Basic dXMgZXI6cEBzcw=='],
    ['http://us%C3%A9r:p%E2%82%ACss@h/v1', 'Basic dXPDqXI6cOKCrHNz'],
    ['http://tok@h/v1', 'Basic dG9rOg==']
  ])('%s', (url, authorization) => {
    expect(splitUrlCredentials(url)).toEqual({ url: 'http://h/v1', headers: { Authorization: authorization } })
  })

  it('leaves a URL without userinfo alone (an @ in the path is not userinfo)', () => {
    expect(splitUrlCredentials('https://h/v1/@x')).toEqual({ url: 'https://h/v1/@x', headers: {} })
  })
})
