/**
 * End to end on real parts: a real Agent talking to the scripted OpenAI-compatible server calls
 * delegate_task; the background child (also a real Agent) completes, its notice lands in the parent
 * session, the child is retained, a follow-up resumes it on its own session, a restart keeps the registry
 * and the cost view, and tombstoning ends follow-ups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, ToolRegistry, type Agent } from '../agent'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider, type ScriptReply } from '../agent/scripted'
import { SessionStore } from '../store'
import { childHandleFromAgent } from './agent-child'
import { sessionCost } from '../costs'
import { createDelegateTool } from './delegate-tool'
import { BackgroundPool, type DelegationCompletion } from './deps'
import { LiveSubagentRegistry } from './live-registry'
import { markSubagent } from './parents'
import { createDelegationRegistry } from './registry'
import { createDelegateDeps } from './service'
import { COMPLETION_DISPLAY_KIND, FOLLOW_UP_NOTE, tempHome, type TempHome } from './test-support'
import { rawDb } from '../store/test-fixtures/raw-db'

let t: TempHome
let provider: ScriptedProvider
let parent: Agent
const pool = new BackgroundPool()
const completions: DelegationCompletion[] = []
let childId = ''

const lastUser = (req: RecordedRequest): string => {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = msgs.at(-1)
  return last?.role === 'user' && typeof last.content === 'string' ? last.content : ''
}

function reply(req: RecordedRequest): ScriptReply {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  if (msgs.at(-1)?.role === 'tool') return { text: 'Noted.', usage: { promptTokens: 30, completionTokens: 2 } }
  const text = lastUser(req)
  if (text === 'please delegate counting')
    return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'count the files' }, id: 'call_1' }] }
  if (text === 'follow up please')
    return {
      toolCalls: [
        { name: 'delegate_task', arguments: { goal: 'how about hidden files', follow_up: childId }, id: 'call_2' }
      ]
    }
  if (text === 'count the files') return { text: '42 files', usage: { promptTokens: 12, completionTokens: 3 } }
  if (text === 'how about hidden files')
    return { text: '3 hidden files', usage: { promptTokens: 20, completionTokens: 4 } }
  return { text: 'ok' }
}

beforeAll(async () => {
  t = tempHome('cad-deleg-int-')
  provider = await startScriptedProvider({ handler: reply })
  const runtime = {
    model: 'scripted-model',
    provider: 'custom',
    baseUrl: provider.baseUrl,
    apiKey: 'sk-test-aaaa',
    apiMode: 'chat_completions' as const
  }
  const deps = createDelegateDeps({
    profile: 'default',
    store: t.store,
    pool,
    live: new LiveSubagentRegistry(),
    registry: { currentProfile: () => 'default' },
    asyncDeliverySupported: () => true,
    onCompletion: (c) => void completions.push(c),
    buildChild: (spec) => {
      const child = createAgent({
        profile: 'default',
        sessionId: spec.sessionId,
        store: t.store,
        runtime,
        tools: new ToolRegistry(),
        maxIterations: spec.maxIterations,
        history: spec.history,
        gatewaySessionKey: '',
        source: 'subagent'
      })
      markSubagent(child, spec.depth, spec.subagentId)
      return childHandleFromAgent(child, runtime.model)
    }
  })
  const tools = new ToolRegistry()
  tools.register(createDelegateTool(deps))
  await t.store.createSession('parent-1', 'desktop')
  parent = createAgent({
    profile: 'default',
    sessionId: 'parent-1',
    store: t.store,
    runtime,
    tools,
    maxIterations: 5,
    gatewaySessionKey: 'agent:main:desk:parent-1'
  })
})

afterAll(async () => {
  await pool.drain()
  await provider?.close()
  t?.cleanup()
})

const toolResults = (sessionId: string) =>
  (
    rawDb(t.store)
      .prepare("SELECT content FROM messages WHERE session_id = ? AND role = 'tool' ORDER BY id")
      .all(sessionId) as Array<{ content: string }>
  ).map((r) => JSON.parse(r.content))

describe('delegation through a real agent and the scripted provider', () => {
  it('dispatches in the background and delivers the completion into the parent session', async () => {
    const r = await parent.runTurn('please delegate counting')
    expect(r.status).toBe('completed')
    const [dispatched] = toolResults('parent-1')
    expect(dispatched).toMatchObject({ status: 'dispatched', mode: 'background', count: 1 })
    await pool.drain()

    expect(completions).toHaveLength(1)
    const notice = rawDb(t.store)
      .prepare('SELECT role, content, display_kind FROM messages WHERE session_id = ? AND display_kind IS NOT NULL')
      .all('parent-1') as Array<{ role: string; content: string; display_kind: string }>
    expect(notice).toHaveLength(1)
    expect(notice[0]).toMatchObject({ role: 'user', display_kind: COMPLETION_DISPLAY_KIND })
    expect(notice[0].content).toContain('42 files')
    expect(completions[0]).toMatchObject({
      parentSessionId: 'parent-1',
      deliveredSessionId: 'parent-1',
      delegationId: dispatched.delegation_id
    })
  })

  it('retains the completed child', () => {
    const reg = createDelegationRegistry(t.store, { currentProfile: () => 'default' })
    const [entry] = reg.listRetainedChildren()
    expect(entry.parentSessionId).toBe('parent-1')
    expect(t.store.getSession(entry.childSessionId)).toMatchObject({
      source: 'subagent',
      parentSessionId: 'parent-1'
    })
    childId = entry.childId
    expect(childId).toMatch(/^sa-0-/)
  })

  it('a follow-up resumes the child on its own session with its transcript', async () => {
    const reg = createDelegationRegistry(t.store, { currentProfile: () => 'default' })
    const childSession = reg.findRetainedChild(childId)!.childSessionId
    const r = await parent.runTurn('follow up please')
    expect(r.status).toBe('completed')
    const followUp = toolResults('parent-1').at(-1)
    expect(followUp).toMatchObject({
      mode: 'follow_up',
      child_id: childId,
      child_session_id: childSession,
      note: FOLLOW_UP_NOTE
    })
    expect(followUp.results[0].summary).toBe('3 hidden files')
    const childRows = rawDb(t.store)
      .prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id')
      .all(childSession) as Array<{ role: string; content: string }>
    expect(childRows.map((m) => m.content)).toEqual([
      'count the files',
      '42 files',
      'how about hidden files',
      '3 hidden files'
    ])
    // the rebuilt child sent its old dialogue along with the new turn
    const childCall = provider.requests.find((q) => lastUser(q) === 'how about hidden files')!
    expect(JSON.stringify(childCall.body.messages)).toContain('42 files')
    // nothing of the child's turn leaked into the parent transcript except the tool result
    expect(
      (
        rawDb(t.store)
          .prepare("SELECT COUNT(*) AS n FROM messages WHERE session_id = 'parent-1' AND content = '3 hidden files'")
          .get() as { n: number }
      ).n
    ).toBe(0)
  })

  it('a restart keeps the retained list and the cost totals', async () => {
    const before = sessionCost(t.store, 'default', 'parent-1')
    expect(before.children).toHaveLength(2)
    expect(before.children.every((c) => c.tokens.input > 0)).toBe(true)
    // the scripted provider is unpriced: children say so instead of claiming $0
    expect(before.childrenTotal).toEqual({ usd: null, status: 'unpriced', complete: false })
    const reopened = new SessionStore(t.dbPath, { profile: 'default' })
    try {
      const reg = createDelegationRegistry(reopened, { currentProfile: () => 'default' })
      await reg.recoverAbandonedDelegations()
      expect(reg.listRetainedChildren().map((e) => e.childId)).toEqual([childId])
      expect(sessionCost(reopened, 'default', 'parent-1')).toEqual(before)
    } finally {
      reopened.close()
    }
  })

  it('after tombstoning, a further follow-up fails with the spec error', async () => {
    const reg = createDelegationRegistry(t.store, { currentProfile: () => 'default' })
    expect(await reg.tombstoneRetainedChild(childId)).toBe(true)
    await parent.runTurn('follow up please')
    const out = toolResults('parent-1').at(-1)
    expect(out.error).toContain(
      `follow_up target '${childId}' is not a running subagent or a retained completed child.`
    )
  })
})
