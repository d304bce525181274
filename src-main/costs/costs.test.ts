import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sessionCost } from './session-cost'
import { costSummary } from './summary'
import { recordChildUsageAttribution } from './ledger'
import { LiveSubagentRegistry } from '../delegation/live-registry'
import { sumMoney } from '@shared/contract/money'
import { createDelegationRegistry } from '../delegation/registry'
import { estimateFollowUp, listSubagents } from '../delegation/subagents'
import { insertDelegation, tempHome, usageReport, type TempHome } from '../delegation/test-support'
import { rawDb } from '../store/test-fixtures/raw-db'

let a: TempHome
let b: TempHome
beforeEach(() => {
  a = tempHome()
  b = tempHome()
})
afterEach(() => {
  a.cleanup()
  b.cleanup()
})

const usage = (costUsd: number | null, model = 'gpt-x') => usageReport(costUsd, { model })

describe('money', () => {
  it('complete only when every part is priced', () => {
    const e = (usd: number) => ({ usd, status: 'estimated' as const, complete: true })
    expect(sumMoney([e(1), e(2)])).toEqual({ usd: 3, status: 'estimated', complete: true })
    expect(sumMoney([e(1), { usd: null, status: 'unpriced', complete: false }])).toEqual({
      usd: 1,
      status: 'partial',
      complete: false
    })
    expect(sumMoney([{ usd: null, status: 'unpriced', complete: false }])).toEqual({
      usd: null,
      status: 'unpriced',
      complete: false
    })
    expect(sumMoney([])).toEqual({ usd: 0, status: 'none', complete: true })
  })
})

describe('sessionCost', () => {
  it('splits own vs children and groups children by parent turn', async () => {
    await a.store.createSession('p', 'desktop')
    await a.store.recordUsage('p', usage(0.5))
    await recordChildUsageAttribution(a.store, {
      parentSessionId: 'p',
      parentTurnId: 't1',
      childSessionId: 'c1',
      usage: { cost_usd: 0.25, tokens: { input: 10, output: 5 }, api_calls: 1, status: 'completed' }
    })
    await recordChildUsageAttribution(a.store, {
      parentSessionId: 'p',
      parentTurnId: 't2',
      childSessionId: 'c2',
      usage: { cost_usd: null, tokens: { input: 7, output: 1 }, api_calls: 1 }
    })
    const c = sessionCost(a.store, 'default', 'p')
    expect(c.own).toEqual({ usd: 0.5, status: 'estimated', complete: true })
    expect(c.children.map((x) => x.cost.status)).toEqual(['estimated', 'unpriced'])
    expect(c.childrenTotal).toEqual({ usd: 0.25, status: 'partial', complete: false })
    expect(c.inclusive).toEqual({ usd: 0.75, status: 'partial', complete: false })
    expect(c.perTurn).toEqual([
      { turnId: 't1', childrenCost: { usd: 0.25, status: 'estimated', complete: true } },
      { turnId: 't2', childrenCost: { usd: null, status: 'unpriced', complete: false } }
    ])
    expect(c.perModel).toEqual([
      {
        model: 'gpt-x',
        cost: { usd: 0.5, status: 'estimated', complete: true },
        tokens: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 }
      }
    ])
  })

  it('a delegate child missing from the ledger still counts, at its own session cost, and is never double counted', async () => {
    await a.store.createSession('p', 'desktop')
    await a.store.recordUsage('p', usage(0.5))
    await a.store.createSession('c-ledgered', 'delegate', {
      parentSessionId: 'p',
      modelConfig: { _delegate_from: 'p' }
    })
    await a.store.recordUsage('c-ledgered', usage(0.25))
    await recordChildUsageAttribution(a.store, {
      parentSessionId: 'p',
      parentTurnId: 't1',
      childSessionId: 'c-ledgered',
      usage: { cost_usd: 0.25, tokens: { input: 100, output: 20 }, api_calls: 1 }
    })
    await a.store.createSession('c-orphan', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    await a.store.recordUsage('c-orphan', usage(0.125))
    await a.store.createSession('c-branch', 'desktop', { parentSessionId: 'p', modelConfig: { _branched_from: 'p' } })
    await a.store.recordUsage('c-branch', usage(9))
    const c = sessionCost(a.store, 'default', 'p')
    expect(c.children.map((x) => [x.childSessionId, x.status])).toEqual([
      ['c-ledgered', null],
      ['c-orphan', 'unledgered']
    ])
    expect(c.inclusive).toEqual({ usd: 0.875, status: 'estimated', complete: true })
  })

  it("a session's own cost reads the same as in the session list, edge statuses included", async () => {
    await a.store.createSession('edge', 'cli')
    rawDb(a.store)
      .prepare(
        "UPDATE sessions SET api_call_count = 2, input_tokens = 50, cost_status = 'partial', estimated_cost_usd = NULL WHERE id = 'edge'"
      )
      .run()
    expect(sessionCost(a.store, 'default', 'edge').own).toEqual(a.store.summary('edge')!.cost)
    rawDb(a.store)
      .prepare("UPDATE sessions SET cost_status = 'unpriced', estimated_cost_usd = 0.2 WHERE id = 'edge'")
      .run()
    expect(sessionCost(a.store, 'default', 'edge').own).toEqual(a.store.summary('edge')!.cost)
  })

  it('unknown sessions are a not_found error; unpriced usage is never $0', async () => {
    expect(() => sessionCost(a.store, 'default', 'nope')).toThrow(/Unknown session/)
    await a.store.createSession('u', 'desktop')
    await a.store.recordUsage('u', usage(null, 'local-model'))
    const c = sessionCost(a.store, 'default', 'u')
    expect(c.own).toEqual({ usd: null, status: 'unpriced', complete: false })
    expect(c.perModel[0].cost.usd).toBeNull()
  })
})

describe('costSummary', () => {
  it('totals per profile, excludes delegate children from own, and lists top sessions', async () => {
    await a.store.createSession('p', 'desktop')
    await a.store.recordUsage('p', usage(1))
    await a.store.createSession('child', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    await a.store.recordUsage('child', usage(0.3))
    await recordChildUsageAttribution(a.store, {
      parentSessionId: 'p',
      childSessionId: 'child',
      usage: { cost_usd: 0.3, tokens: { input: 100, output: 20 }, api_calls: 1 }
    })
    await b.store.createSession('q', 'cli')
    await b.store.recordUsage('q', usage(null, 'local'))
    const s = costSummary(
      [
        { profile: 'default', store: a.store },
        { profile: 'work', store: b.store }
      ],
      { profile: 'all', days: 30 }
    )
    const pa = s.profiles.find((p) => p.profile === 'default')!
    expect(pa).toMatchObject({
      sessions: 1,
      own: { usd: 1 },
      children: { usd: 0.3 },
      inclusive: { usd: 1.3, complete: true }
    })
    expect(s.profiles.find((p) => p.profile === 'work')!.inclusive.status).toBe('unpriced')
    expect(s.total).toMatchObject({ status: 'partial', complete: false })
    expect(s.total.usd).toBeCloseTo(1.3)
    expect(s.topSessions[0]).toMatchObject({ profile: 'default', sessionId: 'p' })
    expect(s.byModel.map((m) => m.model).sort()).toEqual(['gpt-x', 'local'])
    expect(s.byDay.some((d) => d.profile === 'work' && d.unpriced)).toBe(true)
    expect(
      costSummary(
        [
          { profile: 'default', store: a.store },
          { profile: 'work', store: b.store }
        ],
        { profile: 'work' }
      ).profiles.map((p) => p.profile)
    ).toEqual(['work'])
  })
})

describe('costSummary by day', () => {
  it('flags a day unpriced only when an unpriced route was used that day, and spans exactly N days', async () => {
    const now = Date.now() / 1000
    const dayStr = (t: number) => {
      const d = new Date(t * 1000)
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
    }
    const today = dayStr(now)
    const earlier = dayStr(now - 3 * 86400)
    await a.store.createSession('mixed', 'desktop')
    await a.store.recordUsage('mixed', usage(0.5), { at: now - 3 * 86400, day: earlier })
    await a.store.recordUsage('mixed', usage(null, 'local'), { at: now, day: today })
    await a.store.createSession('old', 'desktop')
    await a.store.recordUsage('old', usage(0.1), { at: now - 40 * 86400, day: dayStr(now - 40 * 86400) })
    const s = costSummary([{ profile: 'default', store: a.store }], { profile: 'all', days: 30 }, now)
    expect(s.byDay.find((d) => d.day === earlier)).toMatchObject({ usd: 0.5, unpriced: false })
    expect(s.byDay.find((d) => d.day === today)).toMatchObject({ unpriced: true })
    const week = costSummary([{ profile: 'default', store: a.store }], { profile: 'all', days: 3 }, now)
    expect(week.byDay.map((d) => d.day)).toEqual([today])
  })
})

describe('listSubagents', () => {
  it('classifies running, retained, tombstoned, expired and failed; live inline children too', async () => {
    const clock = Date.now() / 1000
    const reg = createDelegationRegistry(a.store, { now: () => clock, currentProfile: () => 'default' })
    await a.store.createSession('p', 'desktop')
    await a.store.createSession('cs-ret', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    await a.store.appendMessage('cs-ret', { role: 'user', content: 'abcd' })
    await a.store.appendMessage('cs-ret', { role: 'assistant', content: 'efgh' })
    const mk = async (id: string, status: string | null) => {
      await reg.persistDispatch({ delegationId: id, parentSessionId: 'p' })
      await reg.recordDispatchedChildren(id, [{ subagent_id: `sa-${id}`, session_id: `cs-${id}`, goal: `goal ${id}` }])
      if (status) await reg.persistCompletion({ delegation_id: id, status }, { status })
    }
    await mk('run', null)
    await mk('ret', 'completed')
    await mk('tomb', 'completed')
    await mk('exp', 'completed')
    await mk('fail', 'error')
    await reg.tombstoneRetainedChild('sa-tomb')
    rawDb(a.store)
      .prepare("UPDATE async_delegations SET retained_at = ? WHERE delegation_id = 'exp'")
      .run(clock - 100 * 3600)
    await reg.pruneRetainedChildren()
    await recordChildUsageAttribution(a.store, {
      parentSessionId: 'p',
      childSessionId: 'cs-ret',
      usage: { cost_usd: 0.1, tokens: { input: 3, output: 2 }, api_calls: 1 }
    })
    const live = new LiveSubagentRegistry()
    live.register({
      subagentId: 'sa-inline',
      agent: { sessionId: 'cs-inline' },
      profile: 'default',
      parentSessionId: 'p',
      goal: 'inline work'
    })
    live.register({ subagentId: 'sa-run', agent: { sessionId: 'cs-run' }, profile: 'default', parentSessionId: 'p' }) // already durable

    const visible = listSubagents([{ profile: 'default', store: a.store }], { profile: 'all' }, live)
    const byId = Object.fromEntries(visible.items.map((i) => [i.childId, i]))
    expect(Object.keys(byId).sort()).toEqual(['sa-fail', 'sa-inline', 'sa-ret', 'sa-run'])
    expect(byId['sa-run'].state).toBe('running')
    expect(byId['sa-inline'].state).toBe('running')
    expect(byId['sa-fail'].state).toBe('failed')
    const ret = byId['sa-ret']
    expect(ret).toMatchObject({
      state: 'retained',
      rawState: 'completed',
      transcriptMessages: 2,
      transcriptChars: 8,
      goal: 'goal ret',
      cost: { usd: 0.1 }
    })
    expect(ret.expiresAt).toBeCloseTo(ret.retainedAt! + 72 * 3600)
    expect(visible).toMatchObject({ maxRetained: 10, ttlHours: 72 })

    const all = listSubagents(
      [{ profile: 'default', store: a.store }],
      { profile: 'default', includeTombstoned: true, parentSessionId: 'p' },
      live
    )
    const states = Object.fromEntries(all.items.map((i) => [i.childId, i.state]))
    expect(states['sa-tomb']).toBe('tombstoned')
    expect(states['sa-exp']).toBe('expired')
    expect(listSubagents([{ profile: 'default', store: a.store }], { parentSessionId: 'other' }).items).toEqual([])
  })
})

describe('listSubagents cost of an unledgered child (issue 14 bug)', () => {
  it('shows the child session\'s own cost, the same amount the parent lists as unledgered, not "—"', async () => {
    const reg = createDelegationRegistry(a.store, { currentProfile: () => 'default' })
    await a.store.createSession('p', 'desktop')
    await a.store.createSession('cs-x', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    await a.store.recordUsage('cs-x', usage(0.04))
    await reg.persistDispatch({ delegationId: 'x', parentSessionId: 'p' })
    await reg.recordDispatchedChildren('x', [{ subagent_id: 'sa-x', session_id: 'cs-x', goal: 'g' }])
    await reg.persistCompletion({ delegation_id: 'x', status: 'completed' }, { status: 'completed' })
    const parentView = sessionCost(a.store, 'default', 'p').children.find((c) => c.childSessionId === 'cs-x')!
    expect(parentView).toMatchObject({ status: 'unledgered', cost: { usd: 0.04 } })
    const child = listSubagents([{ profile: 'default', store: a.store }], { profile: 'all' }).items.find(
      (i) => i.childId === 'sa-x'
    )!
    expect(child.cost).toEqual(parentView.cost)
  })
})

describe('listSubagents model of a child its dispatch does not name', () => {
  it("shows the model the child's session row records, not —", async () => {
    const reg = createDelegationRegistry(a.store, { currentProfile: () => 'default' })
    await a.store.createSession('p', 'desktop')
    // a Caduceus dispatch: the manifest names no model (the child inherits the parent's); its usage records one
    await a.store.createSession('cs-m', 'subagent', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    await a.store.recordUsage('cs-m', usage(0.01, 'child-model-1'))
    await reg.persistDispatch({ delegationId: 'm', parentSessionId: 'p' })
    await reg.recordDispatchedChildren('m', [{ subagent_id: 'sa-m', session_id: 'cs-m', model: null, goal: 'g' }])
    const live = new LiveSubagentRegistry()
    await a.store.createSession('cs-live', 'subagent', { parentSessionId: 'p', model: 'live-model' })
    live.register({ subagentId: 'sa-live', agent: { sessionId: 'cs-live' }, profile: 'default', parentSessionId: 'p' })
    const items = listSubagents([{ profile: 'default', store: a.store }], { profile: 'all' }, live).items
    expect(items.find((i) => i.childId === 'sa-m')?.model).toBe('child-model-1')
    expect(items.find((i) => i.childId === 'sa-live')?.model).toBe('live-model')
  })
})

describe('estimateFollowUp', () => {
  it('sizes the transcript and never claims $0 for unpriced work', async () => {
    await a.store.createSession('c', 'delegate')
    await a.store.appendMessage('c', { role: 'system', content: 'x'.repeat(1000) })
    await a.store.appendMessage('c', { role: 'user', content: 'y'.repeat(40) })
    expect(estimateFollowUp(a.store, 'c')).toEqual({
      messages: 1,
      chars: 40,
      estTokens: 10,
      estCost: { usd: null, status: 'unpriced', complete: false }
    })
    expect(estimateFollowUp(a.store, 'c', (tok) => tok * 0.001).estCost).toEqual({
      usd: 0.01,
      status: 'estimated',
      complete: true
    })
    expect(estimateFollowUp(a.store, 'missing').estCost.status).toBe('none')
  })
})

describe('restart', () => {
  it('retained rows inserted by hand survive reopen', async () => {
    await insertDelegation(a.store, 'deleg_x', { parentSessionId: 'p' })
    const reg = createDelegationRegistry(a.store)
    await reg.recordDispatchedChildren('deleg_x', [{ subagent_id: 'sa-x', session_id: 'cs-x' }])
    await a.store.ensureSession('cs-x', 'delegate') // a retained child's session exists
    await reg.retainCompletedDelegation('deleg_x')
    expect(
      createDelegationRegistry(a.reopen())
        .listRetainedChildren()
        .map((e) => e.childId)
    ).toEqual(['sa-x'])
  })
})
