import { afterEach, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore } from '../../store'
import { Agent } from '../agent'
import { ToolRegistry } from '../tools/registry'
import { demoResponder, startDemoProvider, startScriptedProvider, type ScriptedProvider } from './index'
import type { RecordedRequest } from './script'

let server: ScriptedProvider | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const post = (path: string, body: unknown) =>
  fetch(`${server!.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })

describe('scripted provider server', () => {
  it('serves the queue over SSE with tool-call deltas, reasoning, a usage chunk and [DONE]', async () => {
    server = await startScriptedProvider({
      script: [
        {
          reasoning: 'hmm',
          toolCalls: [{ name: 'f', arguments: { a: 1 } }],
          usage: { promptTokens: 9, completionTokens: 3, cachedTokens: 2 }
        }
      ]
    })
    const res = await post('/chat/completions', {
      model: 'x',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }]
    })
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const lines = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((l) => l.replace(/^data: /, ''))
    expect(lines.at(-1)).toBe('[DONE]')
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l))
    expect(chunks.some((c) => c.choices[0]?.delta?.reasoning_content)).toBe(true)
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])
    expect(toolDeltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'f' } })
    expect(toolDeltas.map((d) => d.function.arguments).join('')).toBe('{"a":1}')
    expect(chunks.at(-1).usage).toMatchObject({
      prompt_tokens: 9,
      completion_tokens: 3,
      prompt_tokens_details: { cached_tokens: 2 }
    })
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', apiKeyPresent: false })
  })

  it('never splits a surrogate pair across streamed text deltas (🦩 arrives whole)', async () => {
    // 'ab🦩' is 4 UTF-16 units: cutting in thirds by code unit would put the halves in two chunks
    server = await startScriptedProvider({ script: [{ text: 'ab🦩' }, { text: '🦩🦩🦩🦩x' }] })
    for (const want of ['ab🦩', '🦩🦩🦩🦩x']) {
      const res = await post('/chat/completions', {
        model: 'x',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }]
      })
      const deltas = (await res.text())
        .split('\n\n')
        .filter((l) => l && !l.includes('[DONE]'))
        .map((l) => JSON.parse(l.replace(/^data: /, '')).choices[0]?.delta?.content)
        .filter((c): c is string => !!c)
      expect(deltas.length).toBeGreaterThan(1)
      for (const d of deltas)
        expect(d).not.toMatch(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
      expect(deltas.join('')).toBe(want)
    }
  })

  it('answers non-streaming requests (through the openai SDK) and lists models', async () => {
    server = await startScriptedProvider({ script: [{ text: 'plain reply' }], models: ['m1', 'm2'] })
    const sdk = new OpenAI({ apiKey: 'sk-x', baseURL: server.baseUrl, maxRetries: 0 })
    const reply = await sdk.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] })
    expect(reply.choices[0]!.message.content).toBe('plain reply')
    expect(reply.usage!.prompt_tokens).toBeGreaterThan(0)
    expect(server.requests[0]!.apiKeyPresent).toBe(true)
    const models = await sdk.models.list()
    expect(models.data.map((m) => m.id)).toEqual(['m1', 'm2'])
  })

  it('returns scripted errors, rejects non-JSON bodies, and reports an empty queue', async () => {
    server = await startScriptedProvider({ script: [{ error: 429, errorMessage: 'slow down' }] })
    const r1 = await post('/chat/completions', { model: 'x', messages: [] })
    expect(r1.status).toBe(429)
    expect((await r1.json()).error.message).toBe('slow down')
    const r2 = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: 'not json' })
    expect(r2.status).toBe(400)
    const r3 = await post('/chat/completions', { model: 'x', messages: [] })
    expect(r3.status).toBe(500)
    expect((await r3.json()).error.message).toContain('no reply queued')
  })

  it('uses the handler once the queue is empty', async () => {
    server = await startScriptedProvider({ script: [{ text: 'queued' }], handler: () => ({ text: 'from handler' }) })
    const texts: string[] = []
    for (let i = 0; i < 2; i++)
      texts.push(
        (await (await post('/chat/completions', { model: 'x', messages: [] })).json()).choices[0].message.content
      )
    expect(texts).toEqual(['queued', 'from handler'])
  })

  it('close() ends even with a stalled stream open', async () => {
    server = await startScriptedProvider({ script: [{ text: 'stuck', stall: true }] })
    const res = await post('/chat/completions', { model: 'x', stream: true, messages: [] })
    expect(res.status).toBe(200)
    await server.close()
    server = null
  })
})

const req = (body: unknown): RecordedRequest => ({
  method: 'POST',
  path: '/v1/chat/completions',
  body,
  apiKeyPresent: false
})
const tool = (name: string) => ({ type: 'function', function: { name, description: '', parameters: {} } })

describe('demoResponder', () => {
  it('echoes helpfully without tools', () => {
    const r = demoResponder(req({ model: 'demo model', messages: [{ role: 'user', content: 'Plan my week' }] }))
    expect(r.text).toContain('Plan my week')
    expect(r.toolCalls).toBeUndefined()
  })

  it('calls memory on "remember" and delegate_task on "delegate" when offered', () => {
    const tools = [tool('memory'), tool('delegate_task')]
    const mem = demoResponder(req({ tools, messages: [{ role: 'user', content: 'Please remember that I like tea' }] }))
    expect(mem.toolCalls![0]).toMatchObject({
      name: 'memory',
      arguments: { action: 'add', target: 'memory', content: 'I like tea' }
    })
    const del = demoResponder(
      req({ tools, messages: [{ role: 'user', content: 'delegate this research to a subagent' }] })
    )
    expect(del.toolCalls![0]!.name).toBe('delegate_task')
    // Not offered ⇒ no tool call.
    expect(demoResponder(req({ messages: [{ role: 'user', content: 'remember this' }] })).toolCalls).toBeUndefined()
  })

  it('drops recall blocks (and the blank lines before them) from what it reads, closed or not', () => {
    const content = 'Plan my week\n\n\n<memory-context>likes tea</memory-context>\n\nthen rest\n<memory-context>open'
    const r = demoResponder(req({ messages: [{ role: 'user', content }] }))
    expect(r.text).toContain('You said: "Plan my week\n\nthen rest".')
    expect(demoResponder(req({ messages: [{ role: 'user', content: '\n\n\nhi\n\n' }] })).text).toContain('"hi"')
  })

  it('summarizes a tool result instead of calling again (OpenAI and Anthropic shapes)', () => {
    const openai = demoResponder(
      req({
        tools: [tool('memory')],
        messages: [
          { role: 'user', content: 'remember x' },
          { role: 'tool', content: '{"success":true}' }
        ]
      })
    )
    expect(openai.toolCalls).toBeUndefined()
    expect(openai.text).toContain('success')
    const anthropic = demoResponder(
      req({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok!' }] }] })
    )
    expect(anthropic.text).toContain('ok!')
  })

  it('drives a real server end to end', async () => {
    server = await startScriptedProvider({ handler: demoResponder })
    const res = await post('/chat/completions', { model: 'demo model', messages: [{ role: 'user', content: 'hello' }] })
    expect((await res.json()).choices[0].message.content).toContain('hello')
  })
})

describe('demo mode end to end', () => {
  it('an Agent on the demo provider answers, is unpriced, and uses the memory tool when asked to remember', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-demo-'))
    const store = new SessionStore(join(dir, 'state.db'))
    const demo = await startDemoProvider()
    try {
      const saved: string[] = []
      const tools = new ToolRegistry()
      tools.register({
        name: 'memory',
        description: 'memory',
        parameters: { type: 'object' },
        execute: (a) => {
          saved.push(String(a.content))
          return '{"success":true}'
        }
      })
      const agent = new Agent({
        profile: 'default',
        sessionId: 'D1',
        store,
        runtime: demo.runtime,
        tools,
        maxIterations: 4,
        gatewaySessionKey: 'k'
      })
      const r1 = await agent.runTurn('hello there')
      expect(r1).toMatchObject({ status: 'completed', costUsd: null, costStatus: 'unpriced' })
      expect(r1.finalText).toContain('hello there')
      const r2 = await agent.runTurn('remember that my cat is called Mo')
      expect(r2.status).toBe('completed')
      expect(saved).toEqual(['my cat is called Mo'])
      expect(store.getSession('D1')).toMatchObject({ model: 'demo model', costStatus: 'unknown', messageCount: 6 })
    } finally {
      await demo.server.close()
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
