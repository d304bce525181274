import { beforeEach, describe, expect, it } from 'vitest'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { summary, usd } from '../test-utils/fixtures'
import { observe } from '../test-utils/query'
import { setScope } from './app'
import { wireBridge } from './bridge'
import { requestQuery } from './server'
import { sessionRows, watchSessions } from './sessions'

let fake: FakeApi
/** What the host prices the one session at now. */
let price = 0.01

beforeEach(async () => {
  resetStores()
  price = 0.01
  fake = await installFakeApi({
    'sessions.list': ({ profile }) => ({
      items: [summary('s1', { profile: 'default', cost: usd(price) })].filter(
        (s) => profile === 'all' || profile === s.profile
      ),
      nextCursor: null
    }),
    'sessions.get': () => ({
      summary: summary('s1', { cost: usd(price) }),
      lineage: { chain: [], parent: null, branches: [], delegateChildren: [], otherChildren: [] },
      usage: [],
      cwd: null,
      gitBranch: null,
      apiCallCount: 0
    }),
    'subagents.list': () => ({ items: [], maxRetained: 8, ttlHours: 24 }),
    'sessions.search': () => ({ hits: [] })
  })
})

describe('prices.changed', () => {
  it('re-reads every amount priced with the old prices: lists on screen or cached, session details, subagents', async () => {
    const off = wireBridge(fake.api)
    // the list of every profile was read, then the page moved to one profile's list
    setScope('all')
    const unwatch = watchSessions()
    await settle()
    setScope('default')
    await settle()
    const detail = observe(requestQuery('sessions.get', { profile: 'default', sessionId: 's1' }, 'Loading session'))
    const children = observe(
      requestQuery('subagents.list', { profile: 'default', includeTombstoned: false }, 'Loading subagents')
    )
    const search = observe(requestQuery('sessions.search', { profile: 'default', query: 'x' }, 'Search'))
    await settle()
    const reads = () => ({
      lists: fake.callsOf('sessions.list').length,
      detail: fake.callsOf('sessions.get').length,
      subagents: fake.callsOf('subagents.list').length,
      search: fake.callsOf('sessions.search').length
    })
    expect(reads()).toEqual({ lists: 2, detail: 1, subagents: 1, search: 1 })

    price = 0.5
    fake.emit('prices.changed', {})
    await settle()
    // the shown list, the detail and the subagents are read again; search results carry no amount
    expect(reads()).toEqual({ lists: 3, detail: 2, subagents: 2, search: 1 })
    expect(sessionRows().byKey['default/s1']!.cost).toEqual(usd(0.5))
    expect((detail.data() as { summary: { cost: unknown } }).summary.cost).toEqual(usd(0.5))

    // the other list, cached while not shown, does not come back at the old prices
    setScope('all')
    await settle()
    expect(sessionRows().byKey['default/s1']!.cost).toEqual(usd(0.5))

    unwatch()
    detail.off()
    children.off()
    search.off()
    off()
  })
})
