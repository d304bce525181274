import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sessionCost } from './session-cost'
import { costSummary } from './summary'
import { recordChildUsageAttribution } from './ledger'
import { createDelegationRegistry } from '../delegation/registry'
import { listSubagents } from '../delegation/subagents'
import { priceSessionDetail, priceSessionRows } from './custom-prices'
import { overrideFor, readPriceOverrides, writePriceOverrides } from './price-overrides'
import { tempHome, usageReport, type TempHome } from '../delegation/test-support'
import { rawDb } from '../store/test-fixtures/raw-db'

let a: TempHome
beforeEach(() => {
  a = tempHome()
})
afterEach(() => a.cleanup())

const usage = (costUsd: number | null, model: string, baseUrl = 'http://10.0.0.5:8000/v1') =>
  usageReport(costUsd, { model, provider: 'custom', baseUrl, inputTokens: 1_000_000, outputTokens: 200_000 })

describe('price overrides (Caduceus settings, applied at read time)', () => {
  it('prices unpriced usage, labels it custom price, and leaves upstream columns alone', async () => {
    await a.store.createSession('s', 'cli')
    await a.store.recordUsage('s', usage(null, 'my-llama'))
    await a.store.createSession('t', 'cli')
    await a.store.recordUsage('t', usage(0.5, 'gpt-x', 'https://api.openai.com/v1'))
    const stores = [{ profile: 'default', store: a.store }]

    const before = costSummary(stores, { days: 30 })
    expect(before.total).toMatchObject({ usd: 0.5, status: 'partial', complete: false })
    expect(before.customPriced).toBeUndefined()

    // an endpoint-specific price wins over the model-wide one
    const overrides = await writePriceOverrides(a.home, [
      { model: 'my-llama', baseUrl: '', inputPerMTok: 100, outputPerMTok: 100, cacheReadPerMTok: 0 },
      {
        model: 'my-llama',
        baseUrl: 'http://10.0.0.5:8000/v1/',
        inputPerMTok: 2,
        outputPerMTok: 10,
        cacheReadPerMTok: 0
      }
    ])
    expect(readPriceOverrides(a.home)).toEqual(overrides)
    const after = costSummary(stores, { days: 30 }, undefined, readPriceOverrides(a.home))
    // 1M in × $2 + 0.2M out × $10 = $4
    expect(after.customPriced).toEqual({ usd: 4, models: ['my-llama'] })
    expect(after.byModel.find((m) => m.model === 'my-llama')).toMatchObject({
      customPrice: true,
      cost: { usd: 4, status: 'estimated', complete: true }
    })
    expect(after.total.usd).toBeCloseTo(4.5)
    expect(after.total.complete).toBe(true)
    // never written into upstream's cost columns
    const row = rawDb(a.store).prepare("SELECT estimated_cost_usd, cost_status FROM sessions WHERE id = 's'").get()
    expect(row).toEqual({ estimated_cost_usd: 0, cost_status: 'unknown' })
  })

  it('prices cache writes as input, never as a silent $0', async () => {
    await a.store.createSession('s', 'cli')
    await a.store.recordUsage('s', { ...usage(null, 'my-llama'), cacheWriteTokens: 500_000 })
    const s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, undefined, [
      { model: 'my-llama', baseUrl: '', inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0 }
    ])
    // 1M in × $2 + 0.5M cache write × $2 + 0.2M out × $10 = $5
    expect(s.customPriced).toEqual({ usd: 5, models: ['my-llama'] })
  })

  it('a model without an override stays unpriced (never a silent $0)', async () => {
    await a.store.createSession('s', 'cli')
    await a.store.recordUsage('s', usage(null, 'other'))
    const s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, undefined, [
      { model: 'my-llama', baseUrl: '', inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMTok: 0 }
    ])
    expect(s.total).toMatchObject({ usd: null, status: 'unpriced' })
    expect(s.customPriced).toBeUndefined()
  })

  it('rejects bad input at the boundary', async () => {
    await expect(
      writePriceOverrides(a.home, [{ model: '', baseUrl: '', inputPerMTok: -1, outputPerMTok: 1, cacheReadPerMTok: 0 }])
    ).rejects.toThrow()
  })

  it('reaches every cost shown: top sessions, the session page (own, children, per model) and Subagents', async () => {
    await a.store.createSession('p', 'desktop')
    await a.store.recordUsage('p', usage(null, 'my-llama'))
    await a.store.createSession('c', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
    await a.store.recordUsage('c', usage(null, 'my-llama'))
    // the ledger recorded the child unpriced (null, never $0)
    await recordChildUsageAttribution(a.store, {
      parentSessionId: 'p',
      childSessionId: 'c',
      usage: { cost_usd: null, tokens: { input: 1_000_000, output: 200_000 }, api_calls: 1 }
    })
    const reg = createDelegationRegistry(a.store, { currentProfile: () => 'default' })
    await reg.persistDispatch({ delegationId: 'd1', parentSessionId: 'p' })
    await reg.recordDispatchedChildren('d1', [{ subagent_id: 'sa-c', session_id: 'c', goal: 'g' }])
    await reg.persistCompletion({ delegation_id: 'd1', status: 'completed' }, { status: 'completed' })
    const stores = [{ profile: 'default', store: a.store }]
    const child = (o: ReturnType<typeof readPriceOverrides>) =>
      listSubagents(stores, { profile: 'all' }, undefined, o).items.find((i) => i.childId === 'sa-c')!

    // no override: unpriced everywhere, never a silent $0
    expect(sessionCost(a.store, 'default', 'p').inclusive).toMatchObject({ usd: null, status: 'unpriced' })
    expect(costSummary(stores, { days: 30 }).topSessions[0]!.inclusive).toMatchObject({ usd: null })
    expect(child([]).cost).toMatchObject({ usd: null, status: 'unpriced' })

    await writePriceOverrides(a.home, [
      { model: 'my-llama', baseUrl: '', inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0 }
    ])
    const overrides = readPriceOverrides(a.home)
    const c = sessionCost(a.store, 'default', 'p', overrides)
    const four = { usd: 4, status: 'estimated', complete: true }
    expect(c.own).toEqual(four)
    expect(c.children[0]).toMatchObject({ childSessionId: 'c', cost: four, customPrice: true })
    expect(c.inclusive).toEqual({ usd: 8, status: 'estimated', complete: true })
    expect(c.perModel).toEqual([expect.objectContaining({ model: 'my-llama', cost: four, customPrice: true })])
    expect(c.customPrice).toBe(true)

    const s = costSummary(stores, { days: 30 }, undefined, overrides)
    expect(s.topSessions[0]).toMatchObject({ sessionId: 'p', own: four, inclusive: { usd: 8 }, customPrice: true })
    expect(s.total.usd).toBe(8)
    expect(s.customPriced).toEqual({ usd: 8, models: ['my-llama'] })
    expect(child(overrides)).toMatchObject({ cost: four, customPrice: true })

    // upstream's columns still say unpriced
    const rows = rawDb(a.store).prepare('SELECT estimated_cost_usd, cost_status FROM sessions ORDER BY id').all()
    expect(rows).toEqual([
      { estimated_cost_usd: 0, cost_status: 'unknown' },
      { estimated_cost_usd: 0, cost_status: 'unknown' }
    ])
  })

  it('prices the session list row and the session detail (per route), labelled, never $0 without a price', async () => {
    await a.store.createSession('s', 'cli')
    await a.store.recordUsage('s', usage(null, 'my-llama'))
    await a.store.recordUsage('s', usage(0.5, 'gpt-x', 'https://api.openai.com/v1'))
    const rows = () => a.store.listSessions({}).items
    expect(
      priceSessionRows(
        () => a.store,
        rows(),
        () => []
      )[0]!.cost
    ).toMatchObject({ usd: 0.5, status: 'partial' })
    await writePriceOverrides(a.home, [
      { model: 'my-llama', baseUrl: 'http://10.0.0.5:8000/v1', inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0 }
    ])
    const o = readPriceOverrides(a.home)
    const [row] = priceSessionRows(
      () => a.store,
      rows(),
      () => o
    )
    expect(row).toMatchObject({ id: 's', cost: { usd: 4.5, status: 'estimated', complete: true }, customPrice: true })
    const d = priceSessionDetail(a.store, a.store.getSessionDetail('s')!, o)
    expect(d.summary).toMatchObject({ cost: { usd: 4.5 }, customPrice: true })
    expect(d.usage.find((u) => u.model === 'my-llama')).toMatchObject({ cost: { usd: 4 }, customPrice: true })
    expect(d.usage.find((u) => u.model === 'gpt-x')!.customPrice).toBeUndefined()
    // an override for another endpoint does not apply
    const other = [{ ...o[0]!, baseUrl: 'http://elsewhere/v1' }]
    expect(
      priceSessionRows(
        () => a.store,
        rows(),
        () => other
      )[0]!.cost.status
    ).toBe('partial')
  })

  it('prices each usage row by its own tokens, endpoint included, so the rows add up to the own cost', async () => {
    await a.store.createSession('s', 'cli')
    // one model and provider on two endpoints: priced on one, unpriced (and far fewer tokens) on the other
    await a.store.recordUsage('s', usage(0.04, 'demo-model', 'https://a.example/v1'))
    await a.store.recordUsage('s', {
      ...usage(null, 'demo-model', 'http://10.0.0.5:8000/v1'),
      inputTokens: 10_000,
      outputTokens: 1_000
    })
    await writePriceOverrides(a.home, [
      {
        model: 'demo-model',
        baseUrl: 'http://10.0.0.5:8000/v1',
        inputPerMTok: 1,
        outputPerMTok: 10,
        cacheReadPerMTok: 0
      }
    ])
    const o = readPriceOverrides(a.home)
    const d = priceSessionDetail(a.store, a.store.getSessionDetail('s')!, o)
    expect(d.usage.map((u) => [u.baseUrl, u.cost.usd])).toEqual([
      ['https://a.example/v1', 0.04],
      ['http://10.0.0.5:8000/v1', 0.02]
    ])
    const own = sessionCost(a.store, 'default', 's', o).own.usd!
    const rowsSum = d.usage.reduce((sum, u) => sum + Math.round(u.cost.usd! * 1e6), 0)
    expect(Math.round(own * 1e6)).toBe(rowsSum)
    expect(d.summary.cost.usd).toBeCloseTo(0.06, 9)
  })
})

describe('an endpoint-specific override', () => {
  it('matches a base URL whatever its trailing slashes and case, and only those', () => {
    const o = { model: 'm', baseUrl: 'http://h:8000/v1///', inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMTok: 0 }
    expect(overrideFor([o], 'm', 'HTTP://h:8000/v1')).toBe(o)
    expect(overrideFor([o], 'm', 'http://h:8000/v1/')).toBe(o)
    expect(overrideFor([o], 'm', 'http://h:8000/v1//x')).toBeNull()
    expect(overrideFor([o], 'm', 'http://h:8000//v1')).toBeNull()
  })
})
