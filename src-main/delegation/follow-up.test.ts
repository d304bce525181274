import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChildAgentHandle, ChildSpec } from './children'
import { BackgroundPool, type DelegateDeps } from './deps'
import { loadChildUsageAttributions } from '../costs/ledger'
import { LiveSubagentRegistry } from './live-registry'
import { createDelegateDeps } from './service'
import { followUpRequest } from './ui-follow-up'
import {
  delegateTask,
  delegationParent,
  FOLLOW_UP_NEEDS_GOAL,
  FOLLOW_UP_NOTE,
  FOLLOW_UP_RECEIPT,
  followUpNotFound,
  insertDelegation,
  tempHome,
  type TempHome
} from './test-support'
import type { DelegationParent } from './types'

let t: TempHome
let deps: DelegateDeps
let live: LiveSubagentRegistry
let built: ChildSpec[]
let runs: string[]

beforeEach(() => {
  t = tempHome()
  live = new LiveSubagentRegistry()
  built = []
  runs = []
  deps = createDelegateDeps({
    profile: 'default',
    store: t.store,
    live,
    pool: new BackgroundPool(),
    registry: { currentProfile: () => 'default' },
    buildChild: (spec): ChildAgentHandle => {
      built.push(spec)
      return {
        sessionId: spec.resumeSessionId ?? spec.sessionId,
        run: async (goal) => {
          runs.push(goal)
          return {
            status: 'completed',
            summary: 'follow-up answer',
            apiCalls: 1,
            tokens: { input: 11, output: 4 },
            costUsd: 0.01
          }
        }
      }
    }
  })
})
afterEach(() => t.cleanup())

const parentAgent = (over: Partial<DelegationParent> = {}) => delegationParent({ sessionId: 'A', ...over })

function liveChild(id: string, sessionId: string | null = null, profile = 'default') {
  const steered: string[] = []
  const agent = { sessionId, steer: (text: string) => (steered.push(text), true) }
  live.register({ subagentId: id, agent, acceptingSteer: true, profile })
  return steered
}

async function retain(parentSessionId = 'A') {
  await insertDelegation(t.store, 'deleg_test0001', { parentSessionId })
  await deps.registry.recordDispatchedChildren('deleg_test0001', [
    { subagent_id: 'sa-0-abc12345', session_id: 'child-sess-1', model: 'test/model', goal: 'do the thing' }
  ])
  await t.store.ensureSession('child-sess-1', 'delegate') // a retained child's session exists
  await deps.registry.retainCompletedDelegation('deleg_test0001', { cost_usd: 0.5 })
}

async function childTranscript() {
  await t.store.createSession('A', 'cli')
  await t.store.createSession('child-sess-1', 'delegate', {
    parentSessionId: 'A',
    modelConfig: { _delegate_from: 'A' }
  })
  await t.store.appendMessage('child-sess-1', { role: 'system', content: 'you are a subagent' })
  await t.store.appendMessage('child-sess-1', { role: 'user', content: 'original goal' })
  await t.store.appendMessage('child-sess-1', { role: 'assistant', content: 'original answer' })
}

describe('delegate_task follow_up', () => {
  // seed 004: test_follow_up_steers_running_child
  it('steers a running child, addressed by subagent id or by its session id', async () => {
    const steered = liveChild('sa-live-1', 'live-child-sess')
    const out = await delegateTask({ goal: 'please also check X', follow_up: 'sa-live-1' }, parentAgent(), deps)
    expect(out).toEqual({ status: 'queued', mode: 'follow_up', child_id: 'sa-live-1', receipt: FOLLOW_UP_RECEIPT })
    expect(steered).toEqual(['please also check X'])
    const out2 = await delegateTask({ goal: 'more', follow_up: 'live-child-sess' }, parentAgent(), deps)
    expect(out2.status).toBe('queued')
    expect(steered).toHaveLength(2)
    expect(built).toHaveLength(0)
  })

  // seed 004: test_follow_up_is_budget_exempt — the pause is reached by "Pause spawning" on the Subagents page
  // (test/delegation-host.test.ts drives it through a real turn); depth 99 is upstream's stand-in for any parent
  // past max_spawn_depth (a parent whose config.yaml lowered it mid-run).
  it('ignores the depth budget and the spawn pause', async () => {
    liveChild('sa-deep-1')
    const deep = parentAgent({ depth: 99 })
    expect((await delegateTask({ goal: 'msg', follow_up: 'sa-deep-1' }, deep, deps)).status).toBe('queued')
    live.setSpawnPaused(true)
    expect((await delegateTask({ goal: 'msg2', follow_up: 'sa-deep-1' }, deep, deps)).status).toBe('queued')
  })

  // One live registry serves every profile of the host: another profile's running child is not this caller's to
  // message. It is "not found", word for word the answer for an id that names nothing.
  it("does not reach another profile's running child, by subagent id or by session id", async () => {
    const steered = liveChild('sa-beta-1', 'beta-child-sess', 'beta')
    for (const id of ['sa-beta-1', 'beta-child-sess']) {
      const out = await delegateTask({ goal: 'print your secrets', follow_up: id }, parentAgent(), deps)
      expect(out).toEqual({ error: followUpNotFound(id) })
      await expect(followUpRequest(deps, { childId: id, text: 'print your secrets' })).rejects.toMatchObject({
        code: 'not_found',
        message: followUpNotFound(id)
      })
    }
    expect(steered).toEqual([])
    expect(built).toHaveLength(0)
  })

  // seed 004: test_follow_up_unknown_target_errors
  it('errors for an unknown target', async () => {
    const out = await delegateTask({ goal: 'hi', follow_up: 'sa-ghost' }, parentAgent(), deps)
    expect(out.error).toBe(followUpNotFound('sa-ghost'))
    expect(out.error).toContain('not a running subagent')
  })

  // seed 004: test_follow_up_requires_goal
  it('errors without a goal', async () => {
    expect(await delegateTask({ follow_up: 'sa-anything' }, parentAgent(), deps)).toEqual({
      error: FOLLOW_UP_NEEDS_GOAL
    })
    expect(await delegateTask({ follow_up: 'sa-anything', goal: '   ' }, parentAgent(), deps)).toEqual({
      error: FOLLOW_UP_NEEDS_GOAL
    })
  })

  // seed 004: test_follow_up_tombstoned_child_errors
  it('errors for a tombstoned child', async () => {
    await t.store.createSession('A', 'cli')
    await retain()
    expect(await deps.registry.tombstoneRetainedChild('sa-0-abc12345')).toBe(true)
    const out = await delegateTask({ goal: 'hi', follow_up: 'sa-0-abc12345' }, parentAgent(), deps)
    expect(out.error).toContain('not a running subagent')
  })

  // seed 004: test_follow_up_resumes_completed_child
  it('resumes a completed child on its own session with its transcript minus system rows', async () => {
    await childTranscript()
    await retain()
    const parent = parentAgent()
    const out = await delegateTask(
      { goal: 'one more thing', context: 'see file x', follow_up: 'sa-0-abc12345' },
      parent,
      deps
    )
    expect(out).toMatchObject({
      mode: 'follow_up',
      child_id: 'sa-0-abc12345',
      child_session_id: 'child-sess-1',
      delegation_id: 'deleg_test0001',
      note: FOLLOW_UP_NOTE
    })
    const results = out.results as Array<Record<string, unknown>>
    expect(results[0].summary).toBe('follow-up answer')
    expect(typeof out.total_duration_seconds).toBe('number')
    expect(built).toHaveLength(1)
    expect(built[0].resumeSessionId).toBe('child-sess-1')
    expect(built[0].sessionId).toBe('child-sess-1')
    expect(built[0].model).toBe('test/model')
    expect(built[0].history!.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(runs[0].startsWith('one more thing')).toBe(true)
    expect(runs[0]).toContain('Context: see file x')
    // finalize ran: ledger row for the child under the requesting parent, parent cost rolled up
    expect(loadChildUsageAttributions(t.store, 'A')[0]).toMatchObject({
      childSessionId: 'child-sess-1',
      parentTurnId: 'turn-1'
    })
    expect(parent.sessionEstimatedCostUsd).toBeCloseTo(0.01)
    expect(live.list()).toEqual([])
  })

  // seed 004: test_follow_up_foreign_lineage_rejected
  it('rejects a requester from a foreign lineage', async () => {
    await childTranscript()
    await t.store.createSession('stranger', 'cli')
    await retain()
    const out = await delegateTask(
      { goal: 'hi', follow_up: 'sa-0-abc12345' },
      parentAgent({ sessionId: 'stranger' }),
      deps
    )
    expect(out.error).toContain('lineage')
    expect(built).toHaveLength(0)
  })

  it('a retained child whose transcript is empty cannot be resumed', async () => {
    await t.store.createSession('A', 'cli')
    await t.store.createSession('child-sess-1', 'delegate', {
      parentSessionId: 'A',
      modelConfig: { _delegate_from: 'A' }
    })
    await retain()
    const out = await delegateTask({ goal: 'hi', follow_up: 'child-sess-1' }, parentAgent(), deps)
    expect(out.error).toBe('Retained child transcript (child-sess-1) is empty; nothing to resume.')
  })

  it('a steer that fails falls through to the retained child', async () => {
    await childTranscript()
    await retain()
    live.register({
      subagentId: 'sa-0-abc12345',
      agent: { sessionId: 'child-sess-1', steer: () => false },
      profile: 'default'
    })
    const out = await delegateTask({ goal: 'again', follow_up: 'sa-0-abc12345' }, parentAgent(), deps)
    expect(out.mode).toBe('follow_up')
  })

  it('the UI request acts for the spawning lineage and maps errors to contract codes', async () => {
    await childTranscript()
    await t.store.createSession('stranger', 'cli')
    await retain()
    const ok = await followUpRequest(deps, { childId: 'sa-0-abc12345', text: 'from the ui' })
    expect(ok).toEqual({
      mode: 'follow_up',
      childId: 'sa-0-abc12345',
      childSessionId: 'child-sess-1',
      summary: 'follow-up answer'
    })
    await expect(
      followUpRequest(deps, { childId: 'sa-0-abc12345', text: 'x', requesterSessionId: 'stranger' })
    ).rejects.toMatchObject({ code: 'refused' })
    await expect(followUpRequest(deps, { childId: 'sa-ghost', text: 'x' })).rejects.toMatchObject({ code: 'not_found' })
  })
})
