// Issue 4 integration through the REAL host: a resumed session's agent delegates in the background via the
// scripted provider; the completion is delivered into the parent; the child is retained; a UI follow-up
// resumes it on its own session; tombstoning ends follow-ups; a host restart keeps the list and the costs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionCost, Subagent, SubagentList, TurnFinished } from '@shared/contract'
import {
  startScriptedProvider,
  type RecordedRequest,
  type ScriptedProvider,
  type ScriptReply
} from '../src-main/agent/scripted'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { pyJson } from '@shared/contract/py-text'

let root: string
let provider: ScriptedProvider
let host: Host
const PARENT = 'parent-session-1'
/** The child the model follows up (known once the first delegation is retained). */
let followUpTarget = ''

function reply(req: RecordedRequest): ScriptReply {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = messages.at(-1)
  const text = typeof last?.content === 'string' ? last.content : ''
  if (last?.role === 'tool')
    return { text: 'Dispatched; I will report back.', usage: { promptTokens: 40, completionTokens: 6 } }
  if (text === 'count the repo files for me')
    return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'count the files' } }] }
  if (text === 'count the files') return { text: '42 files', usage: { promptTokens: 12, completionTokens: 3 } }
  if (text === 'and the hidden ones?')
    return { text: '3 hidden files', usage: { promptTokens: 30, completionTokens: 4 } }
  if (text.startsWith('[Background delegation')) return { text: 'The subagent counted 42 files.' }
  if (text === 'ask the child about big files')
    return {
      toolCalls: [{ name: 'delegate_task', arguments: { goal: 'and the big ones?', follow_up: followUpTarget } }]
    }
  if (text === 'and the big ones?') return { text: '1 big file' }
  if (text === 'count the docs too')
    return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'count the docs' } }] }
  return { text: 'ok' }
}

const boot = () => createHost({ home: root, headless: true, log: createLogger() })

async function call<T>(name: string, input: unknown): Promise<T> {
  const r = await host.dispatcher.invoke(name, input)
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code })
  return r.output as T
}

function waitFor<T>(event: string, pred: (p: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const off = host.bus.subscribe((e) => {
      if (e.event === event && pred(e.payload as T)) {
        off()
        resolve(e.payload as T)
      }
    })
  })
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cad-deleghost-'))
  provider = await startScriptedProvider({ handler: reply })
  mkdirSync(root, { recursive: true })
  writeFileSync(
    join(root, 'config.yaml'),
    `model:\n  default: scripted-model\n  provider: custom\n  base_url: ${provider.baseUrl}\n`
  )
  const seed = new SessionStore(join(root, 'state.db'), { profile: 'default' })
  await seed.createSession(PARENT, 'cli', { title: 'parent' })
  await seed.appendMessage(PARENT, { role: 'user', content: 'hello' })
  await seed.appendMessage(PARENT, { role: 'assistant', content: 'hi' })
  seed.close()
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await boot()
})

afterAll(async () => {
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('delegation through the host', () => {
  let child: Subagent

  it('a resumed session delegates in the background; the completion becomes the parent’s next turn', async () => {
    const parentReplied = waitFor<TurnFinished>(
      'turn.finished',
      (p) => p.sessionId === PARENT && p.status === 'completed'
    )
    await call('sessions.resume', { profile: 'default', sessionId: PARENT, text: 'count the repo files for me' })
    await parentReplied
    // The delivery turn: the notice is answered by the parent agent.
    await waitFor<TurnFinished>('turn.finished', (p) => p.sessionId === PARENT)
    const page = await call<{ items: Array<{ role: string; content: string | null; displayKind: string | null }> }>(
      'sessions.messages',
      { profile: 'default', sessionId: PARENT, limit: 100 }
    )
    const notices = page.items.filter((m) => m.displayKind === 'async_delegation_complete')
    expect(notices).toHaveLength(1)
    expect(notices[0]!.content).toContain('42 files')
    expect(page.items.at(-1)).toMatchObject({ role: 'assistant', content: 'The subagent counted 42 files.' })

    const list = await call<SubagentList>('subagents.list', { profile: 'default' })
    child = list.items.find((i) => i.parentSessionId === PARENT)!
    expect(child).toMatchObject({ state: 'retained', goal: 'count the files' })
    // The child's row records its own settings before the marker, as upstream's subagent row does (agent-loop golden:
    // max_iterations from delegation.max_iterations, 3 there, the default 50 here).
    const up = new Database(join(import.meta.dirname, 'fixtures/upstream/agent-loop/state.db'), { readonly: true })
    const mine = new Database(join(root, 'state.db'), { readonly: true })
    try {
      const theirs = up.prepare('SELECT model_config FROM sessions WHERE parent_session_id IS NOT NULL').pluck().get()
      const own = mine.prepare('SELECT model_config FROM sessions WHERE id = ?').pluck().get(child.childSessionId)
      const want = { ...JSON.parse(theirs as string), max_iterations: 50, _delegate_from: PARENT }
      expect(own).toBe(pyJson(want)) // json.dumps' bytes
      // and it ended with its run, as upstream's child.close() ends it
      const ends = 'SELECT ended_at IS NOT NULL AS ended, end_reason FROM sessions WHERE '
      const upEnd = up.prepare(`${ends} parent_session_id IS NOT NULL`).get()
      expect(upEnd).toEqual({ ended: 1, end_reason: 'agent_close' })
      expect(mine.prepare(`${ends} id = ?`).get(child.childSessionId)).toEqual(upEnd)
    } finally {
      up.close()
      mine.close()
    }
  })

  it('a UI follow-up resumes the child on its own session', async () => {
    const out = await call<{ mode: string; childSessionId: string; summary: string | null }>('subagents.followUp', {
      profile: 'default',
      childId: child.childId,
      text: 'and the hidden ones?'
    })
    expect(out).toMatchObject({ mode: 'follow_up', childSessionId: child.childSessionId, summary: '3 hidden files' })
    const page = await call<{ items: Array<{ role: string; content: string | null }> }>('sessions.messages', {
      profile: 'default',
      sessionId: child.childSessionId,
      limit: 100
    })
    expect(page.items.map((m) => m.content)).toEqual([
      'count the files',
      '42 files',
      'and the hidden ones?',
      '3 hidden files'
    ])
  })

  // seed 004: test_follow_up_is_budget_exempt, reached by a user action: "Pause spawning" on the Subagents page
  // (upstream's TUI `delegation.pause`), then the model follows up a retained child and tries a new one.
  it('with spawning paused on the Subagents page, a follow-up still runs and a new subagent is refused', async () => {
    expect(await call('subagents.setSpawnPaused', { paused: true })).toEqual({ paused: true })
    expect((await call<SubagentList>('subagents.list', { profile: 'default' })).spawnPaused).toBe(true)
    followUpTarget = child.childId
    const toolResultOf = async (text: string) => {
      const n = provider.requests.length
      const done = waitFor<TurnFinished>('turn.finished', (p) => p.sessionId === PARENT)
      await call('sessions.resume', { profile: 'default', sessionId: PARENT, text })
      expect((await done).status).toBe('completed')
      const after = provider.requests.slice(n).find((r) => {
        const last = ((r.body?.messages ?? []) as Array<{ role: string }>).at(-1)
        return last?.role === 'tool'
      })!
      return String((after.body!.messages as Array<{ content: unknown }>).at(-1)!.content ?? '')
    }
    try {
      const followed = await toolResultOf('ask the child about big files')
      expect(followed).toContain('1 big file')
      expect(followed).not.toContain('paused')
      const refused = await toolResultOf('count the docs too')
      expect(refused).toContain('Delegation spawning is paused')
      expect(provider.requests.some((r) => JSON.stringify(r.body?.messages ?? []).includes('"count the docs"'))).toBe(
        false
      )
    } finally {
      expect(await call('subagents.setSpawnPaused', { paused: false })).toEqual({ paused: false })
    }
  })

  it('a host restart keeps the retained list and the cost totals; tombstoning ends follow-ups', async () => {
    const costBefore = await call<SessionCost>('costs.session', { profile: 'default', sessionId: PARENT })
    expect(costBefore.children.length).toBeGreaterThanOrEqual(1)
    await host.close()
    host = await boot()
    const list = await call<SubagentList>('subagents.list', { profile: 'default' })
    expect(list.items.map((i) => i.childId)).toContain(child.childId)
    expect(await call<SessionCost>('costs.session', { profile: 'default', sessionId: PARENT })).toEqual(costBefore)

    expect(await call('subagents.tombstone', { profile: 'default', childId: child.childId })).toEqual({
      tombstoned: true
    })
    expect(await call('subagents.tombstone', { profile: 'default', childId: child.childId })).toEqual({
      tombstoned: false
    })
    await expect(
      call('subagents.followUp', { profile: 'default', childId: child.childId, text: 'again' })
    ).rejects.toThrow(`follow_up target '${child.childId}' is not a running subagent or a retained completed child.`)
    const withTombstoned = await call<SubagentList>('subagents.list', { profile: 'default', includeTombstoned: true })
    expect(withTombstoned.items.find((i) => i.childId === child.childId)?.state).toBe('tombstoned')
  })
})
