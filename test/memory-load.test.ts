// Issue 5 load check through the REAL host: gateway → agent loop → scripted provider → memory tool, with
// two profiles' turns interleaved on one multiplexed process. 0 entries may land in the wrong store.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TurnFinished } from '@shared/contract'
import {
  startScriptedProvider,
  type RecordedRequest,
  type ScriptedProvider,
  type ScriptReply
} from '../src-main/agent/scripted'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { readEntries } from '../src-main/memory/builtin-store'

const TURNS = 50
let root: string
let provider: ScriptedProvider
let host: Host
const homes = (): Record<string, string> => ({
  alpha: join(root, 'profiles', 'alpha'),
  beta: join(root, 'profiles', 'beta')
})

// The model: "remember <fact>" → a memory tool call storing <fact>; after the tool result → a short answer.
function reply(req: RecordedRequest): ScriptReply {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = messages.at(-1)
  if (last?.role === 'tool') return { text: 'Saved.' }
  const text = typeof last?.content === 'string' ? last.content : ''
  const fact = /^remember (.+)$/.exec(text)?.[1]
  if (fact) return { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: fact } }] }
  return { text: 'ok' }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cad-memload-'))
  provider = await startScriptedProvider({ handler: reply })
  for (const home of Object.values(homes())) {
    mkdirSync(home, { recursive: true })
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  default: scripted-model\n  provider: custom\n  base_url: ${provider.baseUrl}\n`
    )
  }
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, log: createLogger() })
})

afterAll(async () => {
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

function finished(turnId: string): Promise<TurnFinished> {
  return new Promise((resolve) => {
    const off = host.bus.subscribe(({ event, payload }) => {
      if (event === 'turn.finished' && (payload as TurnFinished).turnId === turnId) {
        off()
        resolve(payload as TurnFinished)
      }
    })
  })
}

async function call<T>(name: string, input: unknown): Promise<T> {
  const r = await host.dispatcher.invoke(name, input)
  if (!r.ok) throw new Error(`${name}: ${r.error.message}`)
  return r.output as T
}

async function turns(profile: string): Promise<void> {
  let sessionId: string | null = null
  for (let i = 0; i < TURNS; i++) {
    const text = `remember ${profile} fact ${String(i).padStart(2, '0')}`
    const handle: { turnId: string; sessionId: string } = sessionId
      ? await call('sessions.resume', { profile, sessionId, text })
      : await call('sessions.start', { profile, text })
    sessionId = handle.sessionId
    const done = await finished(handle.turnId)
    expect(done.status, done.error).toBe('completed')
    // Yield so the other profile's turn interleaves with this one.
    await new Promise((r) => setImmediate(r))
  }
}

describe('memory under load through the agent loop', () => {
  it(`2 profiles × ${TURNS} interleaved turns with memory tool calls: 0 entries in the wrong store`, async () => {
    await Promise.all([turns('alpha'), turns('beta')])
    const alpha = readEntries(homes().alpha, 'memory')
    const beta = readEntries(homes().beta, 'memory')
    expect(alpha).toHaveLength(TURNS)
    expect(beta).toHaveLength(TURNS)
    expect(alpha.every((e) => e.startsWith('alpha fact'))).toBe(true)
    expect(beta.every((e) => e.startsWith('beta fact'))).toBe(true)
    expect(readEntries(root, 'memory')).toEqual([])

    // Each profile's activity log holds only its own tool calls.
    const events = await call<{ items: Array<{ profile: string; kind: string; name: string }> }>('memory.events', {
      profile: 'all',
      kinds: ['tool_call'],
      limit: 1000
    })
    const byProfile = (p: string) => events.items.filter((e) => e.profile === p).length
    expect(byProfile('alpha')).toBe(TURNS)
    expect(byProfile('beta')).toBe(TURNS)
    expect(events.items.filter((e) => e.kind === 'refusal')).toEqual([])
  }, 240_000)
})
