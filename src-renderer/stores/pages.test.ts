import { beforeEach, describe, expect, it } from 'vitest'
import { CaduceusError, type CostSummary, type RequestOutput } from '@shared/contract'
import { installFakeApi, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { usd } from '../test-utils/fixtures'
import { loadApp, useApp, setScope } from './app'
import { chartRows, loadCosts, setCostDays } from './costs'
import { applyGatewayChanged, evictAgent, useGateway } from './gateway'
import { saveSettings, useSettings } from './settings'
import { queryClient, requestKey, requestQuery } from './server'
import { useToasts } from './toasts'
import { observe } from '../test-utils/query'

let fake: FakeApi
const settings = {
  profile: 'default',
  provider: 'openai',
  baseUrl: 'https://api.example.com/v1',
  model: 'gpt',
  apiMode: 'chat_completions' as const,
  apiKeySet: false,
  apiKeyStorage: 'none' as const,
  maxIterations: 20,
  compression: {
    enabled: true,
    configuredThreshold: 0.8,
    triggerTokens: 204_800,
    contextWindow: 256_000,
    maxTokens: null,
    adjustments: []
  },
  busyInputMode: 'interrupt' as const,
  demo: false
}
const summary: CostSummary = {
  profiles: [],
  total: usd(3),
  byModel: [],
  topSessions: [],
  tokensByDay: [],
  byDay: [
    { day: '2026-12-02', profile: 'work', usd: 1, unpriced: false },
    { day: '2026-12-01', profile: 'default', usd: 0.5, unpriced: true },
    { day: '2026-12-02', profile: 'default', usd: 1.5, unpriced: false }
  ]
}

beforeEach(async () => {
  resetStores()
  fake = await installFakeApi({
    'app.info': () => ({
      version: '0.1.0',
      root: '/r',
      headless: true,
      demo: false,
      logCommand: 'x',
      profiles: [{ name: 'default', home: '/r', isDefault: true, sessionCount: 3 }]
    }),
    'costs.summary': () => summary,
    'gateway.state': () => ({ agents: [], cap: 8, idleTtlSeconds: 3600 }),
    'gateway.evict': () => ({ evicted: false }),
    'settings.get': () => settings,
    'settings.update': (u) => {
      if (u.baseUrl === 'nope') throw new CaduceusError('invalid_input', 'baseUrl: base URL must be a URL', 'baseUrl')
      return {
        ...settings,
        ...u,
        apiKeySet: u.apiKey ? true : settings.apiKeySet,
        apiKeyStorage: u.apiKey ? 'env_file' : 'none'
      }
    }
  })
})

describe('app store', () => {
  it('falls back to All when the remembered profile is gone', async () => {
    setScope('gone')
    await loadApp()
    expect(useApp.getState().scope).toBe('all')
    expect(useApp.getState().profiles[0]!.name).toBe('default')
  })
})

describe('costs store', () => {
  it('loads the summary for the scope and days', async () => {
    setScope('work')
    await setCostDays(7)
    expect(fake.callsOf('costs.summary').at(-1)).toEqual({ profile: 'work', days: 7 })
    expect(
      queryClient.getQueryData<CostSummary>(requestKey('costs.summary', { profile: 'work', days: 7 }))!.total.usd
    ).toBe(3)
  })

  it('pivots byDay into stacked chart rows, days ascending, missing cells zero', async () => {
    await loadCosts()
    const { rows, profiles, unpricedDays } = chartRows(
      queryClient.getQueryData<CostSummary>(requestKey('costs.summary', { profile: 'all', days: 30 }))!
    )
    expect(profiles).toEqual(['default', 'work'])
    expect(rows).toEqual([
      { day: '2026-12-01', default: 0.5, work: 0 },
      { day: '2026-12-02', default: 1.5, work: 1 }
    ])
    expect(unpricedDays).toEqual(['2026-12-01'])
  })
})

describe('gateway store', () => {
  it('loads while watched and refreshes on gateway.changed only then', async () => {
    await applyGatewayChanged()
    expect(fake.callsOf('gateway.state')).toHaveLength(0)
    const page = observe<{ cap: number }>(requestQuery('gateway.state', {}, 'Loading gateway state'))
    await applyGatewayChanged()
    expect(fake.callsOf('gateway.state').length).toBeGreaterThanOrEqual(1)
    expect(page.data()!.cap).toBe(8)
    page.off()
  })

  it('says so when an evict is refused because the agent runs', async () => {
    expect(await evictAgent('k1')).toBe(false)
    expect(useToasts.getState().toasts.at(-1)!.message).toContain('running')
    expect(useGateway.getState().evicting).toEqual({})
  })
})

describe('settings store', () => {
  it('saves and reflects that a key is set without ever holding it', async () => {
    await queryClient.fetchQuery(requestQuery('settings.get', { profile: 'default' }, 'Loading settings'))
    expect(await saveSettings({ profile: 'default', apiKey: 'sk-secret' })).toBe(true)
    const s = queryClient.getQueryData<RequestOutput<'settings.get'>>(
      requestKey('settings.get', { profile: 'default' })
    )!
    expect(s.apiKeySet).toBe(true)
    expect(JSON.stringify(useSettings.getState())).not.toContain('sk-secret')
    const cached = queryClient
      .getQueryCache()
      .getAll()
      .map((q) => q.state.data)
    expect(JSON.stringify(cached)).not.toContain('sk-secret')
  })

  it('shows a field error by field name, without repeating the field path', async () => {
    expect(await saveSettings({ profile: 'default', baseUrl: 'nope' })).toBe(false)
    expect(useSettings.getState().fieldErrors).toEqual({ baseUrl: 'base URL must be a URL' })
  })
})
