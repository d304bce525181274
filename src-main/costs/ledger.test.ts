import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { finalizeChildResults } from '../delegation/finalize'
import { sessionCost } from './session-cost'
import { loadChildUsageAttributions, recordChildUsageAttribution } from './ledger'
import { delegationParent, tempHome, type TempHome } from '../delegation/test-support'
import type { ChildResult, DelegationParent } from '../delegation/types'
import { rawDb } from '../store/test-fixtures/raw-db'

let t: TempHome
beforeEach(() => (t = tempHome()))
afterEach(() => t.cleanup())

/** What the Session page shows for a parent's children: their summed dollars and tokens (the ledger's totals). */
async function childTotals(parentSessionId: string) {
  if (!t.store.getSession(parentSessionId)) await t.store.createSession(parentSessionId, 'desktop')
  const c = sessionCost(t.store, 'default', parentSessionId)
  const sum = (k: 'input' | 'output') => c.children.reduce((acc, x) => acc + x.tokens[k], 0)
  return { costUsd: c.childrenTotal.usd ?? 0, inputTokens: sum('input'), outputTokens: sum('output') }
}

describe('child usage ledger', () => {
  // seed 004: test_usage_attribution_roundtrip_and_totals
  it('round-trips attributions and sums totals per parent', async () => {
    await recordChildUsageAttribution(t.store, {
      parentSessionId: 'p1',
      parentTurnId: 'turn-1',
      childSessionId: 'c1',
      usage: { cost_usd: 0.25, tokens: { input: 100, output: 50 } },
      aggregate: { session_estimated_cost_usd: 1.25 }
    })
    await recordChildUsageAttribution(t.store, {
      parentSessionId: 'p1',
      childSessionId: 'c2',
      usage: { cost_usd: 0.75, tokens: { input: 10, output: 5 } }
    })
    await recordChildUsageAttribution(t.store, { parentSessionId: 'other', usage: { cost_usd: 99 } })
    await recordChildUsageAttribution(t.store, { parentSessionId: '', usage: { cost_usd: 5 } }) // no-op

    const records = loadChildUsageAttributions(t.store, 'p1')
    expect(records).toHaveLength(2)
    expect(records[0].parentTurnId).toBe('turn-1')
    expect(records[0].aggregate?.session_estimated_cost_usd).toBe(1.25)
    expect(records[1].aggregate).toBeNull()
    const totals = await childTotals('p1')
    expect(totals.costUsd).toBeCloseTo(1.0)
    expect(totals.inputTokens).toBeCloseTo(110)
    expect(totals.outputTokens).toBeCloseTo(55)
    expect(await childTotals('missing')).toEqual({ costUsd: 0, inputTokens: 0, outputTokens: 0 })
    expect(loadChildUsageAttributions(t.store, '')).toEqual([])
  })

  it('a corrupt usage_json row reads as empty usage instead of failing', async () => {
    rawDb(t.store)
      .prepare(
        `INSERT INTO delegation_child_usage (parent_session_id, usage_json, created_at) VALUES ('p', '{oops', 1)`
      )
      .run()
    expect(loadChildUsageAttributions(t.store, 'p')[0].usage).toEqual({})
    expect(await childTotals('p')).toEqual({ costUsd: 0, inputTokens: 0, outputTokens: 0 })
  })
})

const parent = (over: Partial<DelegationParent> = {}) =>
  delegationParent({ sessionId: 'parent-durable', currentTurnId: 'turn-9', memory: null, ...over })

describe('finalizeChildResults', () => {
  // seed 004: test_finalize_child_results_persists_attribution
  it('rolls child cost into the parent and writes one ledger row per child', async () => {
    const p = parent()
    const results: ChildResult[] = [
      {
        task_index: 0,
        status: 'completed',
        summary: 'ok',
        tokens: { input: 7, output: 3 },
        api_calls: 2,
        _child_role: 'leaf',
        _child_cost_usd: 0.42,
        duration_seconds: 1
      }
    ]
    await finalizeChildResults(t.store, p, results, [{ taskIndex: 0, goal: 'g', childSessionId: 'child-durable' }])
    expect(p.sessionEstimatedCostUsd).toBeCloseTo(0.42)
    expect(p.sessionCostSource).toBe('subagent')
    expect(p.sessionCostStatus).toBe('estimated')
    expect((await childTotals('parent-durable')).costUsd).toBeCloseTo(0.42)
    const recs = loadChildUsageAttributions(t.store, 'parent-durable')
    expect(recs[0].childSessionId).toBe('child-durable')
    expect(recs[0].usage.tokens).toEqual({ input: 7, output: 3 })
    expect(recs[0].parentTurnId).toBe('turn-9')
    expect(recs[0].aggregate).toEqual({ session_estimated_cost_usd: 0.42, children_cost_total: 0.42 })
    expect('_child_cost_usd' in results[0]).toBe(false)
  })

  it('unpriced children are recorded as null, not $0, and memory hears about every child', async () => {
    const seen: Array<[string, string, string]> = []
    const p = parent({
      sessionCostSource: 'provider',
      memory: { onDelegation: (task, result, o) => void seen.push([task, result, o.childSessionId]) }
    })
    await finalizeChildResults(
      t.store,
      p,
      [
        {
          task_index: 0,
          status: 'completed',
          summary: 'done',
          api_calls: 1,
          duration_seconds: 0,
          _child_cost_usd: null
        }
      ],
      [{ taskIndex: 0, goal: 'g0', childSessionId: 'c0' }]
    )
    expect(loadChildUsageAttributions(t.store, 'parent-durable')[0].usage.cost_usd).toBeNull()
    expect(p.sessionCostSource).toBe('provider')
    expect(seen).toEqual([['g0', 'done', 'c0']])
  })

  it('a parent without a session id writes no ledger rows; a throwing memory hook is contained', async () => {
    const p = parent({
      sessionId: null,
      memory: {
        onDelegation: () => {
          throw new Error('boom')
        }
      }
    })
    await expect(
      finalizeChildResults(
        t.store,
        p,
        [{ task_index: 0, status: 'completed', summary: 's', api_calls: 0, duration_seconds: 0, _child_cost_usd: 1 }],
        []
      )
    ).resolves.toBeDefined()
    expect((rawDb(t.store).prepare('SELECT COUNT(*) AS n FROM delegation_child_usage').get() as { n: number }).n).toBe(
      0
    )
    expect(p.sessionEstimatedCostUsd).toBe(1)
  })
})
