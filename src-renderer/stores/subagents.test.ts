import { beforeEach, describe, expect, it } from 'vitest'
import type { EventPayload, Subagent } from '@shared/contract'
import { wireBridge } from './bridge'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { subagent } from '../test-utils/fixtures'
import { observe } from '../test-utils/query'
import { setScope, useApp } from './app'
import { queryClient, requestQuery } from './server'
import {
  applyDelegationUpdated,
  countByState,
  estimateFollowUp,
  followUp,
  setShowTombstoned,
  setSpawnPaused,
  setSubagentTab,
  tombstone,
  useSubagents,
  visibleSubagents
} from './subagents'

/** The page's read for its current scope and view: tombstoned rows are asked for by the toggle or that tab. */
const currentSubagentsQuery = () => {
  const { tab, showTombstoned } = useSubagents.getState()
  const includeTombstoned = showTombstoned || tab === 'tombstoned'
  return requestQuery('subagents.list', { profile: useApp.getState().scope, includeTombstoned }, 'Loading subagents')
}
const cachedSubagents = () => queryClient.getQueryData(currentSubagentsQuery().queryKey) ?? null
const loadSubagents = () => queryClient.fetchQuery(currentSubagentsQuery()).then(() => undefined)

/** The page's rows for its current tab and toggle. */
const visible = () => visibleSubagents(cachedSubagents()?.items ?? [], useSubagents.getState())
/** The subagents page is open (its list query observed). */
const openPage = () => observe(currentSubagentsQuery())

let fake: FakeApi
let rows: Subagent[]
let paused = false

beforeEach(async () => {
  resetStores()
  paused = false
  rows = [
    subagent('a', { state: 'running' }),
    subagent('b'),
    subagent('c', { state: 'expired' }),
    subagent('d', { state: 'tombstoned' })
  ]
  fake = await installFakeApi({
    'subagents.list': ({ includeTombstoned }) => ({
      items: rows.filter((r) => includeTombstoned || r.state !== 'tombstoned'),
      maxRetained: 8,
      ttlHours: 24,
      spawnPaused: paused
    }),
    'subagents.setSpawnPaused': (i) => ((paused = i.paused), { paused }),
    'subagents.estimate': () => ({
      messages: 40,
      chars: 400_000,
      estTokens: 100_000,
      estCost: { usd: 0.3, status: 'estimated', complete: true }
    }),
    'subagents.followUp': ({ childId }) => ({
      mode: 'follow_up',
      childId,
      childSessionId: `cs-${childId}`,
      summary: 'done'
    }),
    'subagents.tombstone': ({ childId }) => {
      rows = rows.map((r) => (r.childId === childId ? { ...r, state: 'tombstoned' as const } : r))
      return { tombstoned: true }
    }
  })
})

describe('subagents store', () => {
  it('Pause spawning asks the host and shows what it answered; a reload keeps it', async () => {
    await loadSubagents()
    await setSpawnPaused(true)
    expect(fake.callsOf('subagents.setSpawnPaused')).toEqual([{ paused: true }])
    expect(cachedSubagents()!.spawnPaused).toBe(true)
    queryClient.setQueryData(currentSubagentsQuery().queryKey, { ...cachedSubagents()!, spawnPaused: false })
    await loadSubagents()
    expect(cachedSubagents()!.spawnPaused).toBe(true)
    await setSpawnPaused(false)
    expect(cachedSubagents()!.spawnPaused).toBe(false)
  })

  it('lists across profiles and filters by tab', async () => {
    const page = openPage()
    await Promise.resolve()
    await setSubagentTab('all')
    await applyDelegationUpdated({ profile: 'default', delegationId: 'x', parentSessionId: null })
    expect(fake.callsOf('subagents.list').at(-1)).toMatchObject({ profile: 'all', includeTombstoned: false })
    expect(visible().map((r) => r.childId)).toEqual(['a', 'b', 'c'])
    useSubagents.setState({ tab: 'retained' })
    expect(visible().map((r) => r.childId)).toEqual(['b'])
    expect(countByState(cachedSubagents()!.items).running).toBe(1)
    page.off()
  })

  it('asks for tombstoned rows only when shown', async () => {
    await setShowTombstoned(true)
    expect(fake.callsOf('subagents.list').at(-1)).toMatchObject({ includeTombstoned: true })
    expect(visible().map((r) => r.childId)).toContain('d')
    await setShowTombstoned(false)
    await setSubagentTab('tombstoned')
    expect(fake.callsOf('subagents.list').at(-1)).toMatchObject({ includeTombstoned: true })
    expect(visible().map((r) => r.childId)).toEqual(['d'])
  })

  it('reloads on delegation.updated only while watched and in scope', async () => {
    await applyDelegationUpdated({ profile: 'default', delegationId: 'x', parentSessionId: null })
    expect(fake.callsOf('subagents.list')).toHaveLength(0)
    setScope('work')
    const page = openPage()
    await settle()
    const n = fake.callsOf('subagents.list').length
    expect(n).toBe(1) // opening the page read it once
    await applyDelegationUpdated({ profile: 'default', delegationId: 'x', parentSessionId: null })
    expect(fake.callsOf('subagents.list')).toHaveLength(n)
    await applyDelegationUpdated({ profile: 'work', delegationId: 'x', parentSessionId: null })
    expect(fake.callsOf('subagents.list')).toHaveLength(n + 1)
    page.off()
  })

  it("reloads on sessions.changed for a child's session (upstream's delegate writes it; no delegation event comes)", async () => {
    const off = wireBridge(fake.api)
    const changed = async (evt: EventPayload<'sessions.changed'>) => {
      fake.emit('sessions.changed', evt)
      await settle()
    }
    setScope('default')
    const page = openPage()
    await settle()
    const reads = () => fake.callsOf('subagents.list').length
    expect(reads()).toBe(1)
    // a root session of the profile changed: nothing a subagent list shows
    await changed({ profile: 'default', sessionIds: ['root-1'] })
    expect(reads()).toBe(1)
    // another profile's child
    await changed({ profile: 'work', sessionIds: ['w-child'], parentIds: ['w-parent'] })
    expect(reads()).toBe(1)
    // a child session of this profile wrote its messages and cost: its parent is named
    await changed({ profile: 'default', sessionIds: ['up-child'], parentIds: ['p1'] })
    expect(reads()).toBe(2)
    // a listed child's session was deleted: it has no parent left to name, the list still shows it
    await changed({ profile: 'default', sessionIds: ['cs-b'] })
    expect(reads()).toBe(3)
    page.off()
    off()
  })

  it('estimates, follows up and tombstones through the contract', async () => {
    const est = await estimateFollowUp('default', 'b')
    expect(est!.estTokens).toBe(100_000)
    const r = await followUp('default', 'b', 'keep going')
    expect(r.ok).toBe(true)
    expect(fake.callsOf('subagents.followUp')[0]).toEqual({ profile: 'default', childId: 'b', text: 'keep going' })
    const page = openPage() // a row is tombstoned from the open page, its list loaded
    await settle()
    expect(await tombstone('default', 'b')).toBe(true)
    expect(cachedSubagents()!.items.find((r) => r.childId === 'b')).toBeUndefined() // hidden: tombstoned not requested
    page.off()
  })

  it('returns a refused follow-up as an inline error', async () => {
    fake.handlers['subagents.followUp'] = () => {
      throw new Error('child sa-x is not addressable')
    }
    const r = await followUp('default', 'x', 'hello')
    expect(r).toEqual({ ok: false, error: 'child sa-x is not addressable' })
  })
})
