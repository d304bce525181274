import { beforeEach, describe, expect, it } from 'vitest'
import type { Subagent } from '@shared/contract'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { subagent } from '../test-utils/fixtures'
import { observe } from '../test-utils/query'
import { setScope } from './app'
import { queryClient } from './server'
import {
  applyDelegationUpdated,
  cachedSubagents,
  countByState,
  currentSubagentsQuery,
  estimateFollowUp,
  followUp,
  loadSubagents,
  setShowTombstoned,
  setSpawnPaused,
  setSubagentTab,
  tombstone,
  useSubagents,
  visibleSubagents
} from './subagents'

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
