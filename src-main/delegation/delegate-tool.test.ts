import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { asyncDeliverySupported, TURN_CHANNELS } from '../gateway'
import { runOnChannel } from '../gateway/channels'
import type { ChildAgentHandle, ChildSpec } from './children'
import { loadDelegationConfig } from './config'
import { createDelegateTool } from './delegate-tool'
import { BackgroundPool, type DelegateDeps, type DelegationCompletion } from './deps'
import { LiveSubagentRegistry } from './live-registry'
import { createDelegateDeps } from './service'
import { COMPLETION_DISPLAY_KIND, delegateTask, delegationParent, tempHome, type TempHome } from './test-support'
import { rawDb } from '../store/test-fixtures/raw-db'
// The user-visible texts, pinned here (a test that read them from the code could not catch a wording change).
const NO_PARENT_ERROR = 'delegate_task requires a parent agent context.'
const SPAWN_PAUSED_ERROR =
  'Delegation spawning is paused. Resume it on the Subagents page ("Resume spawning") before retrying; follow-ups to existing subagents still work.'
const STATELESS_NOTE =
  'background=true is not available in this session — it cannot receive a detached subagent result after the turn ends (a one-shot runner such as `hermes -z`, a cron job, a Kanban worker, or a stateless HTTP endpoint). The subagent(s) ran SYNCHRONOUSLY and the result is included above.'
const DEPTH_LIMIT_1_OF_1 =
  'Delegation depth limit reached (depth=1, max_spawn_depth=1). Raise delegation.max_spawn_depth in config.yaml if deeper nesting is required (no hard ceiling, but each level multiplies API cost).'
const CAPACITY_3 =
  'Async delegation capacity reached (3 running). Wait for one to finish (its result will re-enter the chat), or run this task synchronously (background=false). Raise delegation.max_concurrent_children in config.yaml to allow more concurrent background subagents.'

let t: TempHome
let live: LiveSubagentRegistry
let pool: BackgroundPool
let built: ChildSpec[]
let asyncOk: boolean
let gate: Promise<void> | null
let completions: DelegationCompletion[]

function makeDeps(extra: Partial<Parameters<typeof createDelegateDeps>[0]> = {}): DelegateDeps {
  return createDelegateDeps({
    profile: 'default',
    store: t.store,
    live,
    pool,
    registry: { currentProfile: () => 'default' },
    asyncDeliverySupported: () => asyncOk,
    onCompletion: (c) => void completions.push(c),
    buildChild: (spec): ChildAgentHandle => {
      built.push(spec)
      return {
        sessionId: spec.sessionId,
        model: 'm',
        steer: () => true,
        run: async (goal) => {
          if (gate) await gate
          return {
            status: 'completed',
            summary: `done: ${goal}`,
            apiCalls: 1,
            tokens: { input: 5, output: 2 },
            costUsd: 0.02,
            model: 'm'
          }
        }
      }
    },
    ...extra
  })
}

let deps: DelegateDeps
beforeEach(async () => {
  t = tempHome()
  live = new LiveSubagentRegistry()
  pool = new BackgroundPool()
  built = []
  asyncOk = true
  gate = null
  completions = []
  deps = makeDeps()
  await t.store.createSession('parent', 'desktop')
})
afterEach(async () => {
  await pool.drain()
  t.cleanup()
})

const parent = delegationParent

describe('delegate_task schema and config', () => {
  // seed 004: test_delegate_schema_exposes_follow_up
  it('exposes follow_up as a string property and requires nothing', () => {
    const tool = createDelegateTool(deps, { parent: () => parent() })
    const props = (tool.parameters as { properties: Record<string, { type: string }> }).properties
    expect(props.follow_up.type).toBe('string')
    expect(tool.parameters.required).toEqual([])
    expect(tool.name).toBe('delegate_task')
  })

  // seed 004: test_config_defaults_include_retention_knobs
  it('defaults delegation.max_retained to 10 and retained_ttl_hours to 72', () => {
    expect(loadDelegationConfig(t.home)).toMatchObject({
      maxRetained: 10,
      retainedTtlHours: 72,
      maxConcurrentChildren: 3,
      maxSpawnDepth: 1
    })
    t.writeConfig(': not yaml [')
    expect(loadDelegationConfig(t.home).maxRetained).toBe(10)
    t.writeConfig(
      'delegation: {max_retained: 2, retained_ttl_hours: 1, max_concurrent_children: 4, max_spawn_depth: 0, max_iterations: 7}\n'
    )
    // max_spawn_depth has a floor of 1 and no ceiling (hermes-spec §2.8).
    expect(loadDelegationConfig(t.home)).toEqual({
      maxRetained: 2,
      retainedTtlHours: 1,
      maxConcurrentChildren: 4,
      maxSpawnDepth: 1,
      maxIterations: 7
    })
  })

  it("a child's budget is delegation.max_iterations: a max_iterations in the model's call is ignored, as upstream's", async () => {
    t.writeConfig('delegation: {max_iterations: 7}\n')
    await delegateTask({ goal: 'x', max_iterations: 2 }, parent(), deps)
    await delegateTask({ goal: 'y', max_iterations: 900 }, parent(), deps)
    expect(built.map((c) => c.maxIterations)).toEqual([7, 7])
    // nor is it offered: upstream's delegate_task schema has no such parameter
    const props = (createDelegateTool(deps, { parent: () => parent() }).parameters as { properties: object }).properties
    expect(props).not.toHaveProperty('max_iterations')
  })

  it('the description is byte-stable per capability and says "blocking" when async is unavailable', () => {
    const tool = createDelegateTool(deps, { parent: () => parent() })
    asyncOk = true
    const withAsync = tool.description
    expect(tool.description).toBe(withAsync)
    expect(withAsync).not.toContain('blocking')
    asyncOk = false
    const blocking = tool.description
    expect(blocking).toContain('blocking')
    expect(tool.description).toBe(blocking)
  })
})

describe('delegate_task spawn guards', () => {
  it('requires a parent agent', async () => {
    expect(await delegateTask({ goal: 'x' }, null, deps)).toEqual({ error: NO_PARENT_ERROR })
  })

  it('refuses spawns while paused, with the exact text', async () => {
    live.setSpawnPaused(true)
    expect(await delegateTask({ goal: 'x' }, parent(), deps)).toEqual({ error: SPAWN_PAUSED_ERROR })
    expect(built).toHaveLength(0)
  })

  it('refuses spawns past max_spawn_depth', async () => {
    expect(await delegateTask({ goal: 'x' }, parent({ depth: 1 }), deps)).toEqual({ error: DEPTH_LIMIT_1_OF_1 })
  })

  it('rejects missing goals and malformed batches without spawning', async () => {
    expect((await delegateTask({}, parent(), deps)).error).toMatch(/goal/)
    expect((await delegateTask({ tasks: [{ goal: 'a' }, { nope: 1 }] }, parent(), deps)).error).toBe(
      "tasks[1] is missing 'goal'."
    )
    expect(built).toHaveLength(0)
  })
})

describe('delegate_task on a stateless channel', () => {
  // seed 003: test_background_delegation_runs_inline_when_channel_is_stateless
  it('runs inline, never dispatches, and returns the child summary', async () => {
    // the real gateway gate, not a stub: one-shot/cron runners declare a stateless channel
    const gatewayDeps = makeDeps({ asyncDeliverySupported: undefined })
    expect(asyncDeliverySupported()).toBe(true)
    const out = await runOnChannel(TURN_CHANNELS.oneShot, {}, () =>
      delegateTask({ goal: 'review the spec', background: true }, parent(), gatewayDeps)
    )
    expect(out.status).not.toBe('dispatched')
    expect(pool.size).toBe(0)
    expect(rawDb(t.store).prepare('SELECT COUNT(*) AS n FROM async_delegations').get()).toEqual({ n: 0 })
    expect(out.results).toBeDefined()
    expect(JSON.stringify(out)).toContain('done: review the spec')
    expect(out.note).toBe(STATELESS_NOTE)
  })
})

describe('background delegation', () => {
  it('dispatches, creates the delegate child session, delivers the completion once and retains the child', async () => {
    const p = parent()
    const out = await delegateTask({ goal: 'summarise the logs' }, p, deps)
    expect(out).toMatchObject({ status: 'dispatched', mode: 'background', count: 1 })
    const delegationId = out.delegation_id as string
    expect(delegationId).toMatch(/^deleg_[0-9a-f]{8}$/)
    const childSession = t.store.getSession(built[0].sessionId)!
    expect(childSession.source).toBe('subagent') // upstream's child platform (tools/delegate_tool.py)
    expect(childSession.model).toBe('m') // recorded at creation, as upstream's child row is: the Subagents page shows it
    expect(childSession.parentSessionId).toBe('parent')
    expect(JSON.parse(childSession.modelConfig!)._delegate_from).toBe('parent')
    await pool.drain()

    const rows = rawDb(t.store)
      .prepare('SELECT role, content, display_kind, display_metadata FROM messages WHERE session_id = ?')
      .all('parent') as Array<Record<string, string>>
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ role: 'user', display_kind: COMPLETION_DISPLAY_KIND })
    expect(rows[0].content).toContain('done: summarise the logs')
    expect(JSON.parse(rows[0].display_metadata).delegation_id).toBe(delegationId)
    expect(completions).toHaveLength(1)
    expect(completions[0]).toMatchObject({ delegationId, parentSessionId: 'parent', deliveredSessionId: 'parent' })
    expect(deps.registry.getDurableDelegation(delegationId)).toMatchObject({
      state: 'completed',
      deliveryState: 'delivered'
    })
    expect(deps.registry.findRetainedChild(built[0].subagentId)).toMatchObject({
      childSessionId: built[0].sessionId,
      delegationId
    })
    expect(p.sessionEstimatedCostUsd).toBeCloseTo(0.02)

    // a second delivery attempt of the same delegation never appends twice
    rawDb(t.store).prepare("UPDATE async_delegations SET delivery_state = 'pending'").run()
    const { restoreUndeliveredCompletions } = await import('./completion')
    await restoreUndeliveredCompletions(deps)
    expect(
      (rawDb(t.store).prepare('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?').get('parent') as { n: number })
        .n
    ).toBe(1)
  })

  it('a dispatch that cannot be recorded (the database is locked) closes its built children and removes their sessions', async () => {
    const closed: string[] = []
    deps = makeDeps({
      buildChild: (spec): ChildAgentHandle => {
        built.push(spec)
        return {
          sessionId: spec.sessionId,
          run: () => Promise.reject(new Error('an undispatched child must never run')),
          close: () => void closed.push(spec.subagentId)
        }
      }
    })
    deps.registry.persistDispatch = () => Promise.reject(new Error('database is locked'))
    const out = await delegateTask({ tasks: [{ goal: 'a' }, { goal: 'b' }] }, parent(), deps)
    expect(out).toEqual({ error: 'Could not dispatch the delegation: database is locked' })
    expect(closed.sort()).toEqual(built.map((b) => b.subagentId).sort())
    expect(built).toHaveLength(2)
    for (const b of built) expect(t.store.getSession(b.sessionId)).toBeFalsy()
    expect(pool.size).toBe(0)
    expect(live.list()).toEqual([])
  })

  it('rejects (does not queue) past the concurrency cap, counting a batch as one unit', async () => {
    let open!: () => void
    gate = new Promise<void>((r) => (open = r))
    const first = await delegateTask({ tasks: [{ goal: 'a' }, { goal: 'b' }] }, parent(), deps)
    expect(first.status).toBe('dispatched')
    expect((await delegateTask({ goal: 'c' }, parent(), deps)).status).toBe('dispatched')
    expect((await delegateTask({ goal: 'd' }, parent(), deps)).status).toBe('dispatched')
    const over = await delegateTask({ goal: 'e' }, parent(), deps)
    expect(over).toEqual({ error: CAPACITY_3 })
    expect(
      (over.error as string).startsWith('Async delegation capacity reached (3 running). Wait for one to finish')
    ).toBe(true)
    expect(
      live
        .list()
        .map((l) => l.goal)
        .sort()
    ).toEqual(['a', 'b', 'c', 'd'])
    open()
    await pool.drain()
    expect((await delegateTask({ goal: 'f' }, parent(), deps)).status).toBe('dispatched')
    await pool.drain()
    const batch = deps.registry.getDurableDelegation(first.delegation_id)!
    expect(batch.state).toBe('completed')
    expect(deps.registry.listRetainedChildren().filter((c) => c.delegationId === first.delegation_id)).toHaveLength(2)
  })

  it('delivers into the compression tip when the parent rotated while the child ran', async () => {
    let open!: () => void
    gate = new Promise<void>((r) => (open = r))
    const out = await delegateTask({ goal: 'slow job' }, parent(), deps)
    await t.store.endSession('parent', 'compression')
    await t.store.createSession('parent-2', 'desktop', { parentSessionId: 'parent' })
    open()
    await pool.drain()
    const where = rawDb(t.store)
      .prepare('SELECT session_id FROM messages WHERE display_kind = ?')
      .all(COMPLETION_DISPLAY_KIND)
    expect(where).toEqual([{ session_id: 'parent-2' }])
    expect(completions[0]).toMatchObject({
      delegationId: out.delegation_id,
      parentSessionId: 'parent',
      deliveredSessionId: 'parent-2'
    })
  })

  it('nested orchestrators run their children inline', async () => {
    t.writeConfig('delegation:\n  max_spawn_depth: 3\n')
    const out = await delegateTask({ goal: 'nested' }, parent({ depth: 1 }), deps)
    expect(out.status).toBeUndefined()
    expect((out.results as unknown[]).length).toBe(1)
    expect(built[0].depth).toBe(2)
  })

  it('a child that throws becomes an error result and is not retained', async () => {
    deps = makeDeps({
      buildChild: (spec) => ({
        sessionId: spec.sessionId,
        run: async () => {
          throw new Error('provider exploded')
        }
      })
    })
    const out = await delegateTask({ goal: 'boom' }, parent(), deps)
    await pool.drain()
    const row = deps.registry.getDurableDelegation(out.delegation_id)!
    expect(row.state).toBe('error')
    expect(deps.registry.listRetainedChildren()).toEqual([])
    const msg = rawDb(t.store).prepare('SELECT content FROM messages WHERE session_id = ?').get('parent') as {
      content: string
    }
    expect(msg.content).toContain('provider exploded')
  })
})
