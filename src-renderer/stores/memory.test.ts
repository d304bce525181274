import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { MemoryEvent, RequestOutput } from '@shared/contract'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { observe } from '../test-utils/query'
import { resetStores } from '../test-utils/reset-stores'
import { setScope } from './app'
import {
  applyMemoryActivity,
  editEntry,
  loadEntries,
  loadHealth,
  loadMemoryEvents,
  loadOlderMemoryEvents,
  setMemoryFilters,
  useMemory
} from './memory'
import { queryClient, requestKey, requestQuery } from './server'
import { wireBridge } from './bridge'

/** The entries a panel for this profile shows (its target as picked). */
const shownEntries = (profile: string) =>
  queryClient.getQueryData<RequestOutput<'memory.entries'>>(
    requestKey('memory.entries', { profile, target: useMemory.getState().target })
  )?.entries
/** The memory page is open: its entries panel and health panel observe their reads. */
function openPage(profile: string) {
  const entries = observe(
    requestQuery('memory.entries', { profile, target: useMemory.getState().target }, 'Loading memory entries')
  )
  const health = observe(requestQuery('memory.health', { profile: 'all' }, 'Loading provider health'))
  return () => {
    entries.off()
    health.off()
  }
}

const FEED_CAP = 2000 // the live feed keeps the newest 2000 events

let fake: FakeApi
let entries: Record<string, string[]>
const ev = (id: number, patch: Partial<MemoryEvent> = {}): MemoryEvent => ({
  id,
  profile: 'default',
  provider: 'builtin',
  kind: 'prefetch',
  name: 'prefetch',
  sessionId: 's1',
  turnId: null,
  ok: true,
  latencyMs: 5,
  summary: `event ${id}`,
  size: 10,
  at: 1_700_000_000 + id,
  ...patch
})

// a stand-in count for the fake host (the real one is memoryUsage, tested against upstream's figures)
const usageOf = (list: string[]) => ({ used: list.join('\n§\n').length, limit: 2200, percent: 0 })

beforeEach(async () => {
  resetStores()
  entries = { default: ['likes tea'], work: ['uses vim'] }
  fake = await installFakeApi({
    'memory.events': ({ beforeId, limit }) => ({
      items: Array.from({ length: 300 }, (_, i) => ev(300 - i))
        .filter((e) => beforeId == null || e.id < beforeId)
        .slice(0, limit ?? 200)
    }),
    'memory.entries': ({ profile, target }) => ({
      profile,
      target: target ?? 'memory',
      entries: entries[profile] ?? [],
      usage: usageOf(entries[profile] ?? [])
    }),
    'memory.edit': (edit) => {
      const list = [...(entries[edit.profile] ?? [])]
      if (edit.op === 'add') list.push(edit.content)
      else if (edit.op === 'replace') list[edit.index] = edit.content
      else list.splice(edit.index, 1)
      entries[edit.profile] = list
      return { profile: edit.profile, target: edit.target, entries: list, usage: usageOf(list) }
    },
    'memory.health': () => ({
      items: [
        {
          profile: 'default',
          provider: 'builtin',
          calls: 10,
          errors: 1,
          refusals: 0,
          lastError: 'boom',
          lastErrorAt: 1,
          p95LatencyMs: 12
        }
      ]
    })
  })
})

describe('memory store', () => {
  it('loads the feed newest first and pages older', async () => {
    await loadMemoryEvents()
    expect(useMemory.getState().order.slice(0, 2)).toEqual([300, 299])
    expect(useMemory.getState().hasMore).toBe(true)
    await loadOlderMemoryEvents()
    expect(useMemory.getState().order).toHaveLength(300)
    expect(fake.callsOf('memory.events')[1]).toMatchObject({ beforeId: 101 })
  })

  it('sends filters with the query', async () => {
    setScope('work')
    await setMemoryFilters({ kinds: ['refusal'], provider: 'honcho', sessionId: 's9', refusalsOnly: true })
    expect(fake.callsOf('memory.events').at(-1)).toMatchObject({
      profile: 'work',
      kinds: ['refusal'],
      provider: 'honcho',
      sessionId: 's9',
      refusalsOnly: true
    })
  })

  it('drops the answer for filters replaced meanwhile', async () => {
    let release!: () => void
    const slow = new Promise<void>((r) => {
      release = r
    })
    const all = fake.handlers['memory.events']!
    fake.handlers['memory.events'] = async (q) => {
      if (q.provider === 'slow') await slow
      return { items: (await all(q)).items.map((e) => ({ ...e, provider: q.provider ?? e.provider })) }
    }
    const first = setMemoryFilters({ provider: 'slow' })
    await setMemoryFilters({ provider: 'fast' })
    release()
    await first
    expect(useMemory.getState().byId[300]!.provider).toBe('fast')
    expect(useMemory.getState().loading).toBe(false)
  })

  it('prepends live activity that matches scope and filters, once', async () => {
    await loadMemoryEvents()
    applyMemoryActivity(ev(301))
    applyMemoryActivity(ev(301))
    expect(useMemory.getState().order.slice(0, 2)).toEqual([301, 300])
    expect(useMemory.getState().order.filter((x) => x === 301)).toHaveLength(1)
    setScope('work')
    applyMemoryActivity(ev(302))
    expect(useMemory.getState().byId[302]).toBeUndefined()
    setScope('all')
    useMemory.setState((s) => ({ filters: { ...s.filters, refusalsOnly: true } }))
    applyMemoryActivity(ev(303, { kind: 'write' }))
    applyMemoryActivity(ev(304, { kind: 'refusal', ok: false, provider: 'honcho' }))
    expect(useMemory.getState().byId[303]).toBeUndefined()
    expect(useMemory.getState().byId[304]).toBeDefined()
    expect(useMemory.getState().knownProviders).toContain('honcho')
  })

  it('caps the live feed', () => {
    for (let i = 1; i <= FEED_CAP + 10; i++) applyMemoryActivity(ev(i))
    const st = useMemory.getState()
    expect(st.order).toHaveLength(FEED_CAP)
    expect(st.order[0]).toBe(FEED_CAP + 10)
    expect(Object.keys(st.byId)).toHaveLength(FEED_CAP)
  })

  it('edits entries of exactly the named profile', async () => {
    await loadEntries('work', 'memory')
    expect(shownEntries('work')).toEqual(['uses vim'])
    await editEntry({ op: 'add', profile: 'work', target: 'memory', content: 'prefers tabs' })
    await editEntry({ op: 'replace', profile: 'work', target: 'memory', index: 0, content: 'uses helix' })
    expect(shownEntries('work')).toEqual(['uses helix', 'prefers tabs'])
    await editEntry({ op: 'remove', profile: 'work', target: 'memory', index: 1 })
    expect(entries.work).toEqual(['uses helix'])
    expect(entries.default).toEqual(['likes tea'])
  })

  it('returns an edit error inline', async () => {
    fake.handlers['memory.edit'] = () => {
      throw new Error('entry text is required')
    }
    expect(await editEntry({ op: 'add', profile: 'default', target: 'memory', content: 'x' })).toEqual({
      ok: false,
      error: 'entry text is required'
    })
  })

  it('loads provider health', async () => {
    const health = await loadHealth()
    expect(health[0]!.lastError).toBe('boom')
  })

  describe('while the memory page watches', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('re-reads the shown entries and health after a write lands for that profile', async () => {
      await loadEntries('work', 'memory')
      const stop = openPage('work')
      await settle()
      const [entryReads, healthReads] = [fake.callsOf('memory.entries').length, fake.callsOf('memory.health').length]
      vi.useFakeTimers()
      entries.work = ['uses vim', 'standup at 9:30']
      applyMemoryActivity(ev(900, { profile: 'work', kind: 'write', name: 'add:memory' }))
      applyMemoryActivity(ev(901, { profile: 'work', kind: 'sync', name: 'sync_turn' }))
      await vi.runAllTimersAsync()
      expect(shownEntries('work')).toEqual(['uses vim', 'standup at 9:30'])
      expect(fake.callsOf('memory.entries')).toHaveLength(entryReads + 1)
      expect(fake.callsOf('memory.health')).toHaveLength(healthReads + 1)
      stop()
    })

    it('re-reads the shown entries when the host says the files changed on disk (upstream’s memory tool)', async () => {
      const off = wireBridge(fake.api)
      await loadEntries('work', 'memory')
      const stop = openPage('work')
      await settle()
      const entryReads = fake.callsOf('memory.entries').length
      const profileReads = fake.callsOf('profiles.list').length
      entries.work = ['uses vim', 'written by upstream']
      fake.emit('memory.changed', { profile: 'work' })
      fake.emit('memory.changed', { profile: 'work' })
      await settle()
      expect(shownEntries('work')).toEqual(['uses vim', 'written by upstream'])
      expect(fake.callsOf('memory.entries')).toHaveLength(entryReads + 1)
      // and the rail's profiles again: a file that stopped being readable is a profile notice there
      expect(fake.callsOf('profiles.list').length).toBeGreaterThan(profileReads)
      fake.emit('memory.changed', { profile: 'default' })
      await settle()
      expect(fake.callsOf('memory.entries')).toHaveLength(entryReads + 1)
      stop()
      off()
    })

    it("leaves the entries alone for another profile's write, and does nothing once unwatched", async () => {
      await loadEntries('work', 'memory')
      const stop = openPage('work')
      await settle()
      const [entryReads, healthReads] = [fake.callsOf('memory.entries').length, fake.callsOf('memory.health').length]
      vi.useFakeTimers()
      applyMemoryActivity(ev(902, { profile: 'default', kind: 'write', name: 'add:memory' }))
      await vi.runAllTimersAsync()
      expect(fake.callsOf('memory.entries')).toHaveLength(entryReads)
      expect(fake.callsOf('memory.health')).toHaveLength(healthReads + 1) // every event moves the health numbers
      stop()
      applyMemoryActivity(ev(903, { profile: 'work', kind: 'write', name: 'add:memory' }))
      await vi.runAllTimersAsync()
      expect(fake.callsOf('memory.entries')).toHaveLength(entryReads)
      expect(fake.callsOf('memory.health')).toHaveLength(healthReads + 1)
    })
  })
})
