import { describe, expect, it } from 'vitest'
import { loadPricer, priceOf } from './pricing'

const priceCall = await loadPricer()

const usage = { inputTokens: 800, outputTokens: 100, cacheReadTokens: 200, cacheWriteTokens: 0, reasoningTokens: 0 }

describe('priceCall', () => {
  it('prices a known OpenAI model as estimated', () => {
    const r = priceCall({ provider: 'openai', model: 'gpt-4o', baseUrl: 'https://api.openai.com/v1' }, usage)
    expect(r.costStatus).toBe('estimated')
    expect(r.costUsd).toBeGreaterThan(0)
    expect(r.costSource).toBe('official_docs_snapshot') // upstream's cost_source for a price from a published table
    expect(r.pricingVersion).toContain('genai-prices')
  })

  it('charges cache reads less than fresh input', () => {
    const route = { provider: 'anthropic', model: 'claude-sonnet-4-20250514', baseUrl: 'https://api.anthropic.com' }
    const cached = priceCall(route, { ...usage, inputTokens: 0, cacheReadTokens: 1000 })
    const fresh = priceCall(route, { ...usage, inputTokens: 1000, cacheReadTokens: 0 })
    expect(cached.costUsd!).toBeLessThan(fresh.costUsd!)
  })

  it('finds the provider from the API URL when the id is custom', () => {
    const r = priceCall({ provider: 'custom', model: 'gpt-4o', baseUrl: 'https://api.openai.com/v1' }, usage)
    expect(r.costStatus).toBe('estimated')
  })

  it('unknown model, unknown provider, local server and demo are unpriced, never $0', () => {
    for (const route of [
      { provider: 'openai', model: 'no-such-model-xyz', baseUrl: 'https://api.openai.com/v1' },
      { provider: 'mystery', model: 'gpt-4o', baseUrl: 'https://llm.example.internal/v1' },
      { provider: 'custom', model: 'gpt-4o', baseUrl: 'http://127.0.0.1:8000/v1' },
      { provider: 'demo', model: 'demo model', baseUrl: 'http://127.0.0.1:9/v1' }
    ]) {
      expect(priceCall(route, usage)).toEqual({
        costUsd: null,
        costStatus: 'unpriced',
        costSource: 'none',
        pricingVersion: null
      })
    }
  })
})

describe('priceOf', () => {
  it('prices as the pricer does, and answers a local or demo route unpriced', async () => {
    const route = { provider: 'openai', model: 'gpt-4o', baseUrl: 'https://api.openai.com/v1' }
    expect(await priceOf(route, usage)).toEqual(priceCall(route, usage))
    for (const r of [
      { provider: 'demo', model: 'demo-model', baseUrl: '' },
      { provider: 'openai', model: 'gpt-4o', baseUrl: 'http://127.0.0.1:8000/v1' }
    ])
      expect(await priceOf(r, usage)).toEqual({
        costUsd: null,
        costStatus: 'unpriced',
        costSource: 'none',
        pricingVersion: null
      })
  })
})
