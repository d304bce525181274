// A caller's system text on the API server, driven by the official `openai` SDK: chat `system`/`developer`
// messages, Responses `instructions` and Runs `instructions` reach the provider after the profile's persona
// (SOUL.md), for that caller only; they are never stored as messages, and changing them rebuilds the agent.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptedProvider, type ScriptedProvider } from '../agent/scripted'
import { type Host } from '../host'
import { startApiServer, type ApiServer } from './index'
import { apiHostHome } from './test-fixtures/api-home'
import { errorMessage } from '@shared/contract/errors'

let root: string
let host: Host
let provider: ScriptedProvider
let server: ApiServer
let client: OpenAI
const KEY = 'hk_instructions_test_key'
/** Upstream's SOUL.md cuts (scripts/golden/soul_truncate.py). */
const soulGolden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/soul-truncate/upstream.json'), 'utf8')
) as {
  unknownModelContextLength: number
  cases: Array<{ size: number; contextLength: number | null; cut: { head: number; tail: number } | null }>
}
const SOUL = 'You are Tern, a terse seabird who answers in one line.'

type Sent = Array<{ role: string; content: unknown }>
const lastSent = (): Sent => provider.requests.at(-1)!.body.messages as Sent
const systemOf = (messages: Sent) => (messages[0]?.role === 'system' ? String(messages[0].content) : null)
const storedContents = () => {
  const db = new Database(join(root, 'state.db'), { readonly: true })
  try {
    return (db.prepare('SELECT content FROM messages').all() as Array<{ content: string | null }>).map((r) => r.content)
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  provider = await startScriptedProvider({ handler: () => ({ text: 'ok' }) })
  ;({ root, host } = await apiHostHome({
    prefix: 'cad-api-instr-',
    baseUrl: provider.baseUrl,
    key: KEY,
    before: (home) => writeFileSync(join(home, 'SOUL.md'), `\uFEFF${SOUL}\n`)
  }))
  server = await startApiServer({ gateway: host.gateway, vault: host.vault, profile: 'default', home: root, port: 0 })
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 })
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('caller system text on the API server', () => {
  it('sends chat system and developer messages after the SOUL.md persona, and stores neither', async () => {
    await client.chat.completions.create({
      model: 'hermes-agent',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'developer', content: [{ type: 'text', text: 'Never use emoji.' }] },
        { role: 'user', content: 'hello' }
      ]
    })
    const system = systemOf(lastSent())!
    expect(system.startsWith(SOUL)).toBe(true)
    expect(system.indexOf('Answer in French.')).toBeGreaterThan(system.indexOf(SOUL))
    expect(system.indexOf('Never use emoji.')).toBeGreaterThan(system.indexOf('Answer in French.'))
    expect(lastSent().filter((m) => m.role === 'system')).toHaveLength(1)
    const stored = storedContents().join('\n')
    expect(stored).toContain('hello')
    expect(stored).not.toContain('Answer in French.')
  })

  it('without any system text the persona alone is the system prompt', async () => {
    await client.chat.completions.create({ model: 'hermes-agent', messages: [{ role: 'user', content: 'plain' }] })
    expect(systemOf(lastSent())).toBe(SOUL)
  })

  it('Responses instructions (and system input items) reach the provider', async () => {
    await client.responses.create({
      model: 'hermes-agent',
      instructions: 'Reply as a haiku.',
      input: [
        { role: 'system', content: 'Mention the tide.' },
        { role: 'user', content: 'the sea' }
      ]
    })
    const system = systemOf(lastSent())!
    expect(system).toContain('Reply as a haiku.')
    expect(system.indexOf('Mention the tide.')).toBeGreaterThan(system.indexOf('Reply as a haiku.'))
  })

  it('a continued session with new instructions rebuilds its agent and sends only the new text', async () => {
    const first = await client.chat.completions
      .create({
        model: 'hermes-agent',
        messages: [
          { role: 'system', content: 'Be formal.' },
          { role: 'user', content: 'one' }
        ]
      })
      .withResponse()
    const sid = first.response.headers.get('x-hermes-session-id')!
    await client.chat.completions.create(
      {
        model: 'hermes-agent',
        messages: [
          { role: 'system', content: 'Be casual.' },
          { role: 'user', content: 'two' }
        ]
      },
      { headers: { 'X-Hermes-Session-Id': sid } }
    )
    const system = systemOf(lastSent())!
    expect(system).toContain('Be casual.')
    expect(system).not.toContain('Be formal.')
    // Same session: the history came along.
    expect(lastSent().map((m) => m.content)).toContain('one')
  })

  it('Runs instructions reach the provider', async () => {
    const res = await fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'status?', instructions: 'Use bullet points.' })
    })
    expect(res.status).toBe(202)
    const { run_id } = (await res.json()) as { run_id: string }
    for (let i = 0; i < 100; i++) {
      const run = (await (
        await fetch(`${server.url}/v1/runs/${run_id}`, { headers: { authorization: `Bearer ${KEY}` } })
      ).json()) as { status: string }
      if (run.status === 'completed') break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(systemOf(lastSent())).toContain('Use bullet points.')
  })

  it("takes a character card's worth of system text; refuses more than a model could take before any turn runs", async () => {
    // SillyTavern: main prompt, description, personality, scenario, world info, examples, each a system message.
    const card = Array.from({ length: 8 }, (_, i) => ({
      role: 'system' as const,
      content: `part ${i} ${'c'.repeat(9_000)}`
    }))
    await client.chat.completions.create({
      model: 'hermes-agent',
      messages: [...card, { role: 'user', content: 'hi' }]
    })
    expect(systemOf(lastSent())).toContain(`part 7 ${'c'.repeat(9_000)}`)
    const before = provider.requests.length
    const err = await client.chat.completions
      .create({
        model: 'hermes-agent',
        // (Each message is read up to upstream's 65,536 characters, so it takes many to pass the bound.)
        messages: [
          ...Array.from({ length: 16 }, () => ({ role: 'system' as const, content: 'x'.repeat(65_536) })),
          { role: 'user', content: 'hi' }
        ]
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(errorMessage(err)).toMatch(/at most 1000000 characters/)
    expect(provider.requests.length).toBe(before)
  })

  it("a long SOUL.md is cut at upstream's limit for a model whose context length nothing states", async () => {
    // config.yaml names no context_length: upstream's agent falls back to 256k tokens (golden soul-truncate), a
    // limit of 61,440 characters, and keeps its first 43,008 and last 12,288, not the 20k floor's.
    const golden = soulGolden.cases.find(
      (c) => c.size === 70_000 && c.contextLength === soulGolden.unknownModelContextLength
    )!
    const long =
      Array.from({ length: 7_000 }, (_, i) => `rule ${String(i).padStart(4, '0')}\n`)
        .join('')
        .slice(0, -1) + '!' // 70,000
    writeFileSync(join(root, 'SOUL.md'), long)
    try {
      // New system text, so the API server builds a new agent that reads the file again.
      await client.chat.completions.create({
        model: 'hermes-agent',
        messages: [
          { role: 'system', content: 'Answer in Latin.' },
          { role: 'user', content: 'hi' }
        ]
      })
      const system = systemOf(lastSent())!
      expect(system.startsWith(long.slice(0, golden.cut!.head) + '\n\n[SOUL.md is 70000 characters')).toBe(true)
      expect(system).toContain(']\n\n' + long.slice(-golden.cut!.tail) + '\n\nAnswer in Latin.')
    } finally {
      writeFileSync(join(root, 'SOUL.md'), `${SOUL}\n`)
    }
  })
})
