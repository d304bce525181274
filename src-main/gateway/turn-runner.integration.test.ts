/**
 * The resume path end to end: real Gateway + real Agent + the scripted OpenAI-compatible HTTP server +
 * a real state.db on a temp home, and a real second process for the cross-process guard.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EnvFileVault } from '../secrets'
import type { EventName, EventPayload } from '@shared/contract'
import type { Agent } from '../agent'
import { startScriptedProvider, type ScriptedProvider } from '../agent/scripted'
import { StoreRegistry, type SessionStore } from '../store'
import { HAS_UPSTREAM, upstreamRewind } from '../store/test-fixtures/spawn-writer'
import { Gateway } from './index'
import { buildRealAgent } from './test-fixtures/real-agent'

const run = promisify(execFile)
const ROOT_DIR = resolve(import.meta.dirname, '../..')

let provider: ScriptedProvider
let root: string
let registry: StoreRegistry
let gateway: Gateway<Agent, SessionStore>
let builds = 0
const events: Array<{ event: EventName; payload: any }> = []

function writeConfig(extra = '') {
  writeFileSync(
    join(root, 'config.yaml'),
    `# integration home\nmodel:\n  default: scripted-model\n  provider: custom\n  base_url: "${provider.baseUrl}"\n  api_mode: chat_completions\n  api_key_env: OPENAI_API_KEY\n${extra}`
  )
}

beforeAll(async () => {
  provider = await startScriptedProvider({
    handler: (req) => ({
      text: `echo: ${String(req.body?.messages?.at(-1)?.content ?? '')}`,
      usage: { promptTokens: 10, completionTokens: 3 }
    })
  })
  root = mkdtempSync(join(tmpdir(), 'cad-gw-int-'))
  writeConfig()
  writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-test-key-aaaa\n')
  registry = new StoreRegistry(root)
  gateway = new Gateway<Agent, SessionStore>({
    vault: new EnvFileVault(),
    root,
    stores: registry,
    buildAgent: (i) => {
      builds++
      return buildRealAgent(i)
    },
    emit: <K extends EventName>(event: K, payload: EventPayload<K>) => void events.push({ event, payload })
  })
})

afterAll(async () => {
  await gateway?.shutdown()
  registry?.closeAll()
  await provider?.close()
})

async function turn(p: Promise<{ turnId: string; sessionId: string }>) {
  const handle = await p
  const finished = await gateway.finished(handle.turnId)!
  const started = events.find((e) => e.event === 'turn.started' && e.payload.turnId === handle.turnId)!.payload
  return { handle, finished, decision: started.cache as string }
}

describe('gateway + agent + scripted provider', () => {
  let sid = ''

  it('streams the reply and persists it', async () => {
    const { handle, finished, decision } = await turn(gateway.start({ profile: 'default', text: 'hello' }))
    sid = handle.sessionId
    expect(decision).toBe('new')
    expect(finished).toMatchObject({ status: 'completed', apiCalls: 1, cost: { usd: null } })
    const text = events
      .filter((e) => e.event === 'turn.delta' && e.payload.turnId === handle.turnId && e.payload.kind === 'text')
      .map((e) => e.payload.text)
      .join('')
    expect(text).toBe('echo: hello')
    const convo = registry.get('default').getMessagesAsConversation(sid)
    expect(convo.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'echo: hello']
    ])
    expect(gateway.state().agents).toMatchObject([
      { key: `agent:default:desktop:${sid}`, running: false, turns: 1, messageCountSnapshot: 2 }
    ])
  })

  it('20 own turns reuse one agent (0 rebuilds)', async () => {
    const before = builds
    for (let i = 0; i < 20; i++) {
      const { decision, finished } = await turn(
        gateway.resume({ profile: 'default', sessionId: sid, text: `turn ${i}` })
      )
      expect(decision).toBe('reused')
      expect(finished.status).toBe('completed')
    }
    expect(builds - before).toBe(0)
    expect(registry.get('default').getSession(sid)!.messageCount).toBe(42)
  })

  it('a second process appending to the session makes the next turn rebuild (external_write)', async () => {
    const db = join(root, 'state.db')
    // node --import tsx, not `npx tsx`: npx and the tsx CLI's own child cost ~1 CPU-s more for the same process.
    const fixture = join(ROOT_DIR, 'src-main/gateway/test-fixtures/append-message.ts')
    const { stdout } = await run(process.execPath, ['--import', 'tsx', fixture, db, sid, 'note from another process'], {
      cwd: ROOT_DIR
    })
    expect(JSON.parse(stdout).pid).not.toBe(process.pid)
    const before = builds
    const { decision } = await turn(
      gateway.resume({ profile: 'default', sessionId: sid, text: 'after the foreign write' })
    )
    expect(decision).toBe('external_write')
    expect(builds - before).toBe(1)
    // The rebuilt agent saw the foreign message: it was in the history sent to the provider (run together with the
    // user message after it, as consecutive user messages go on the wire).
    const last = provider.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)
    expect(last).toContain('note from another process\n\nafter the foreign write')
    expect((await turn(gateway.resume({ profile: 'default', sessionId: sid, text: 'and again' }))).decision).toBe(
      'reused'
    )
  }, 60_000)

  it.runIf(HAS_UPSTREAM)(
    "upstream's own rewind_to_message in another process makes the next turn rebuild without the rewound turns",
    async () => {
      const store = registry.get('default')
      const count = store.getSession(sid)!.messageCount
      // the last turn ('and again' and its reply) set inactive; message_count is left as it was
      const r = await upstreamRewind(join(root, 'state.db'), sid)
      expect(r).toMatchObject({ rewound: 2 })
      expect(r.pid).not.toBe(process.pid)
      expect(store.getSession(sid)!.messageCount).toBe(count)
      const before = builds
      const { decision } = await turn(gateway.resume({ profile: 'default', sessionId: sid, text: 'after the rewind' }))
      expect(decision).toBe('external_write')
      expect(builds - before).toBe(1)
      const sent = provider.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content)
      expect(sent).toContain('note from another process\n\nafter the foreign write')
      expect(sent).not.toContain('and again')
      expect(sent).not.toContain('echo: and again')
      expect(sent.at(-1)).toBe('after the rewind')
      // our own turn after it is not a rewind: the agent is kept
      expect((await turn(gateway.resume({ profile: 'default', sessionId: sid, text: 'once more' }))).decision).toBe(
        'reused'
      )
    },
    60_000
  )

  it('an API-key change in the profile .env rebuilds (config_changed)', async () => {
    writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-test-key-bbbb\n')
    const { decision } = await turn(gateway.resume({ profile: 'default', sessionId: sid, text: 'new key' }))
    expect(decision).toBe('config_changed')
  })

  it('a reasoning-config change does not rebuild', async () => {
    writeConfig('agent:\n  reasoning_effort: high\n')
    const { decision } = await turn(gateway.resume({ profile: 'default', sessionId: sid, text: 'think harder' }))
    expect(decision).toBe('reused')
    // ...and the warm agent picked the new setting up in place.
    expect((gateway.cache.get(`agent:default:desktop:${sid}`)?.agent as Agent).reasoningConfig).toEqual({
      enabled: true,
      effort: 'high'
    })
  })

  it('a cache-busting config change rebuilds', async () => {
    writeConfig('compression:\n  threshold: 0.7\n')
    expect((await turn(gateway.resume({ profile: 'default', sessionId: sid, text: 'x' }))).decision).toBe(
      'config_changed'
    )
  })
})
