// seed 003 on the API server: a terminal `notify_on_complete` inside an API-server turn is refused with the
// poll hint (the caller's HTTP response is over before the process ends), bound through the one chokepoint.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider, type ScriptReply } from '../agent/scripted'
import { type Host } from '../host'
import { startApiServer, type ApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'

let root: string
let host: Host
let provider: ScriptedProvider
let server: ApiServer
const KEY = 'hk_terminal_test_key'
const command = `"${process.execPath}" -e "console.log('BUILD OK')"`

/** Upstream's stream of text, a tool call, then text (scripts/golden/api_tool_break.py). */
const breakGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/api-tool-break/cases.json'), 'utf8')
) as {
  first: string
  after: string
  chat: { streamed: string }
  chatQuiet: { streamed: string }
  responses: { streamed: string; completedText: string }
  assistantContents: string[]
}

function reply(req: RecordedRequest): ScriptReply {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = messages.at(-1)
  if (JSON.stringify(messages).includes('check it')) {
    if (last?.role === 'tool') return { text: breakGolden.after }
    return {
      text: JSON.stringify(messages).includes('quietly') ? '' : breakGolden.first,
      toolCalls: [{ id: 'call_echo', name: 'terminal', arguments: { command: 'echo hi' } }]
    }
  }
  if (last?.role === 'tool') return { text: `tool said: ${String(last.content)}` }
  return {
    toolCalls: [{ id: 'call_1', name: 'terminal', arguments: { command, background: true, notify_on_complete: true } }]
  }
}

beforeAll(async () => {
  provider = await startScriptedProvider({ handler: reply })
  ;({ root, host } = await apiHostHome({
    prefix: 'cad-api-term-',
    baseUrl: provider.baseUrl,
    key: KEY,
    extraConfig: 'terminal:\n  enabled: true\n'
  }))
  server = await startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home: root, port: 0 })
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('terminal notify on the API server', () => {
  // seed 003: test_terminal_notify_refused_when_async_delivery_unsupported (API-server counterpart)
  it('is refused with the poll hint and notify_on_complete false', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
    const r = await client.chat.completions.create({
      model: 'hermes-agent',
      messages: [{ role: 'user', content: 'build it' }]
    })
    const toolMessage = (provider.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === 'tool'
    )!
    const payload = JSON.parse(toolMessage.content)
    expect(payload.notify_on_complete).toBe(false)
    expect(payload.notify_unsupported).toMatch(/poll/)
    expect(r.choices[0]!.message.content).toContain('notify_unsupported')
  })
})

describe('text after a tool call in an API stream', () => {
  it('starts after a paragraph break, in chat and Responses streams, as upstream streams it', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
    let chat = ''
    const stream = await client.chat.completions.create({
      model: 'hermes-agent',
      stream: true,
      messages: [{ role: 'user', content: 'check it' }]
    })
    for await (const chunk of stream) chat += chunk.choices[0]?.delta?.content ?? ''
    expect(chat).toBe(breakGolden.chat.streamed)
    // No text before the tool call: the break still opens the text after it.
    let quiet = ''
    const quietStream = await client.chat.completions.create({
      model: 'hermes-agent',
      stream: true,
      messages: [{ role: 'user', content: 'check it quietly' }]
    })
    for await (const chunk of quietStream) quiet += chunk.choices[0]?.delta?.content ?? ''
    expect(quiet).toBe(breakGolden.chatQuiet.streamed)

    let deltas = ''
    let completed: string | null = null
    const events = await client.responses.create({ model: 'hermes-agent', stream: true, input: 'check it' })
    for await (const ev of events) {
      if (ev.type === 'response.output_text.delta') deltas += ev.delta
      if (ev.type === 'response.completed') completed = ev.response.output_text
    }
    expect(deltas).toBe(breakGolden.responses.streamed)
    expect(completed).toBe(breakGolden.responses.completedText)
  })
})
