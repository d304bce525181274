import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { UsageReport } from '../store'
import { costSummary } from './costs'
import { readPriceOverrides, writePriceOverrides } from './price-overrides'
import { tempHome, type TempHome } from './test-support'
import { rawDb } from '../store/test-fixtures/raw-db'

let a: TempHome
beforeEach(() => {
  a = tempHome()
})
afterEach(() => a.cleanup())

const usage = (costUsd: number | null, model: string, baseUrl = 'http://10.0.0.5:8000/v1'): UsageReport => ({
  model,
  provider: 'custom',
  baseUrl,
  inputTokens: 1_000_000,
  outputTokens: 200_000,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  apiCalls: 1,
  costUsd,
  costStatus: costUsd === null ? 'unpriced' : 'estimated'
})

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
    expect(row).toEqual({ estimated_cost_usd: null, cost_status: 'unpriced' })
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
})
