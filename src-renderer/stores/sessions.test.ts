import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { RequestOutput, SessionQuery } from '@shared/contract'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { summary } from '../test-utils/fixtures'
import { setScope } from './app'
import { observe } from '../test-utils/query'
import { deleteWithUndo, undoDelete } from './pending-delete'
import {
  applySearchSessionsChanged,
  applySessionsChanged,
  clearSearch,
  loadMoreSessions,
  query,
  reloadSessions,
  runSearch,
  sessionKey,
  sessionRows,
  setSessionFilters,
  useSessions,
  watchSessions
} from './sessions'
import { queryClient } from './server'
import { useToasts } from './toasts'
import { errorMessage } from '../lib/format'

// The current list's query as the store keys it (request + input), and its read state; the head re-read is 50 rows.
const rowsKey = (input: SessionQuery) => ['sessions.rows', input] as const
const HEAD_SIZE = 50
function sessionRowsState(): { error: string | null; stale: boolean } {
  const st = queryClient.getQueryState(rowsKey(query()))
  return { error: st?.error ? errorMessage(st.error) : null, stale: !!st?.isInvalidated }
}

let fake: FakeApi
let db: ReturnType<typeof summary>[]
/** Sessions that exist but the list does not show (a segment compression continued), and each one's chain ids. */
let unlisted: Map<string, ReturnType<typeof summary>>
let chains: Map<string, string[]>

function pageOf(q: SessionQuery) {
  const start = q.cursor ? Number(q.cursor) : 0
  const limit = q.limit ?? 100
  const items = db.slice(start, start + limit)
  return { items, nextCursor: start + limit < db.length ? String(start + limit) : null }
}

beforeEach(async () => {
  resetStores()
  unlisted = new Map()
  chains = new Map()
  db = Array.from({ length: 150 }, (_, i) => summary(`s${i}`, { lastActiveAt: 2_000_000 - i }))
  fake = await installFakeApi({
    'sessions.list': (q) => pageOf(q),
    'sessions.get': ({ sessionId }) => {
      const s = db.find((x) => x.id === sessionId) ?? unlisted.get(sessionId)
      if (!s) throw Object.assign(new Error('no such session'), { code: 'not_found' })
      const chain = (chains.get(sessionId) ?? []).map((id, i) => ({
        id,
        title: null,
        kind: i ? ('continuation' as const) : ('root' as const),
        startedAt: 1,
        endReason: null,
        messageCount: 1
      }))
      return {
        summary: s,
        lineage: { chain, parent: null, branches: [], delegateChildren: [], otherChildren: [] },
        usage: [],
        cwd: null,
        gitBranch: null,
        apiCallCount: 0
      }
    }
  })
})

describe('sessions store', () => {
  it('loads the first page and pages on with the keyset cursor', async () => {
    await reloadSessions()
    expect(sessionRows().order).toHaveLength(100)
    expect(sessionRows().nextCursor).toBe('100')
    await loadMoreSessions()
    const st = sessionRows()
    expect(st.order).toHaveLength(150)
    expect(st.nextCursor).toBeNull()
    expect(fake.callsOf('sessions.list')[1]!.cursor).toBe('100')
  })

  it("offers every source the scope's sessions have, not only those of the rows it shows", async () => {
    fake.handlers['sessions.sources'] = () => ({ sources: ['cli', 'kanban', 'oneshot'] })
    await reloadSessions()
    await vi.waitFor(() => expect(useSessions.getState().knownSources).toEqual(['cli', 'kanban', 'oneshot']))
    expect(fake.callsOf('sessions.sources')).toEqual([{ profile: 'all' }])
  })

  it('sends filters and the profile scope with the query', async () => {
    setScope('work')
    await setSessionFilters({
      sources: ['cli'],
      archived: 'only',
      idPrefix: ' abc ',
      includeChildren: true,
      from: 10,
      to: 20
    })
    const q = fake.callsOf('sessions.list').at(-1)!
    expect(q).toMatchObject({
      profile: 'work',
      sources: ['cli'],
      archived: 'only',
      idPrefix: 'abc',
      includeChildren: true,
      from: 10,
      to: 20,
      cursor: null
    })
  })

  it('keys rows by profile and id so equal ids in two profiles both show', async () => {
    db = [summary('x', { profile: 'default' }), summary('x', { profile: 'work' })]
    await reloadSessions()
    expect(sessionRows().order).toEqual([sessionKey('default', 'x'), sessionKey('work', 'x')])
  })

  it('merges a live change without clobbering loaded rows, filters or the search text', async () => {
    const off = watchSessions()
    await setSessionFilters({ idPrefix: 'typed' })
    await loadMoreSessions()
    const listKey = rowsKey(query())
    useSessions.setState((s) => ({ search: { ...s.search, query: 'half-typed' } }))
    // s120 becomes the most recent; a brand-new session appears too
    const moved = { ...db[120]!, title: 'moved up', lastActiveAt: 3_000_000 }
    db = [summary('new1', { lastActiveAt: 3_000_001 }), moved, ...db.filter((s) => s.id !== 's120')]
    // the refresh reads with the current filters; our fake ignores idPrefix
    await applySessionsChanged({ profile: 'default', sessionIds: ['new1', 's120'] })
    const st = useSessions.getState()
    const rows = queryClient.getQueryData<ReturnType<typeof sessionRows>>(listKey)!
    expect(rows.order.slice(0, 2)).toEqual(['default/new1', 'default/s120'])
    expect(rows.order).toHaveLength(151)
    expect(new Set(rows.order).size).toBe(151)
    expect(rows.byKey['default/s120']!.title).toBe('moved up')
    expect(st.filters.idPrefix).toBe('typed')
    expect(st.search.query).toBe('half-typed')
    off()
  })

  it('a burst of changes re-reads only the head of a long list once, not every loaded page', async () => {
    db = Array.from({ length: 1000 }, (_, i) => summary(`s${i}`, { lastActiveAt: 2_000_000 - i }))
    const off = watchSessions()
    await reloadSessions()
    for (let i = 0; i < 9; i++) await loadMoreSessions()
    expect(sessionRows().order).toHaveLength(1000)
    const before = fake.callsOf('sessions.list').length
    db[0] = { ...db[0]!, title: 'streaming' }
    await Promise.all(
      Array.from({ length: 20 }, () => applySessionsChanged({ profile: 'default', sessionIds: ['s0'] }))
    )
    const reads = fake.callsOf('sessions.list').slice(before)
    expect(reads).toHaveLength(1)
    expect(reads[0]).toMatchObject({ cursor: null, limit: HEAD_SIZE })
    expect(sessionRows().order).toHaveLength(1000)
    expect(sessionRows().byKey['default/s0']!.title).toBe('streaming')
    off()
  })

  it('coming back to a list that went stale merges the head instead of starting over', async () => {
    let off = watchSessions()
    await reloadSessions()
    await loadMoreSessions()
    off()
    db[0] = { ...db[0]!, title: 'while away' }
    await applySessionsChanged({ profile: 'default', sessionIds: ['s0'] })
    expect(sessionRowsState().stale).toBe(true)
    const before = fake.callsOf('sessions.list').length
    off = watchSessions()
    await settle()
    expect(fake.callsOf('sessions.list').slice(before)).toEqual([expect.objectContaining({ limit: HEAD_SIZE })])
    expect(sessionRows().order).toHaveLength(150)
    expect(sessionRows().byKey['default/s0']!.title).toBe('while away')
    off()
  })

  it('updates a changed row outside the refreshed head in place', async () => {
    const off = watchSessions()
    await reloadSessions()
    db[90] = { ...db[90]!, title: 'renamed elsewhere' }
    await applySessionsChanged({ profile: 'default', sessionIds: ['s90'] })
    const st = sessionRows()
    expect(st.byKey['default/s90']!.title).toBe('renamed elsewhere')
    expect(st.order.indexOf('default/s90')).toBe(90)
    off()
  })

  it('a compressed session leaves the list for its continuation, as a fresh load shows it', async () => {
    const off = watchSessions()
    await reloadSessions()
    await loadMoreSessions()
    // s3 is compressed into t3 (the new tip, now the most recent row); later s120 — a chain's middle segment whose
    // own row was loaded — is continued too, its tip sorting first, and nothing names the ended segment
    const root = { ...db[3]!, endedAt: 1_700_000_200, endReason: 'compression' }
    unlisted.set('s3', root)
    chains.set('s3', ['s3', 't3'])
    db = [summary('t3', { rootId: 's3', chainLength: 2, lastActiveAt: 3_000_000 }), ...db.filter((s) => s.id !== 's3')]
    await applySessionsChanged({ profile: 'default', sessionIds: ['s3', 't3'] })
    expect(sessionRows().order).toEqual(db.map((s) => `default/${s.id}`))
    db = [
      summary('t120', { rootId: 's120', chainLength: 3, lastActiveAt: 3_000_001 }),
      ...db.filter((s) => s.id !== 's120')
    ]
    await applySessionsChanged({ profile: 'default', sessionIds: ['t120'] })
    expect(sessionRows().byKey['default/s120']).toBeUndefined()
    expect(sessionRows().order).toEqual(db.map((s) => `default/${s.id}`))
    off()
  })

  it('with the children filter on, a compressed session stays a row beside its continuation', async () => {
    const off = watchSessions()
    await setSessionFilters({ includeChildren: true })
    await loadMoreSessions()
    // s3 and, past the re-read head, s120 are compressed; the host lists both segments of each chain
    chains.set('s3', ['s3', 't3'])
    chains.set('s120', ['s120', 't120'])
    db = [
      summary('t120', { rootId: 's120', chainLength: 2, lastActiveAt: 3_000_001 }),
      summary('t3', { rootId: 's3', chainLength: 2, lastActiveAt: 3_000_000 }),
      ...db
    ]
    await applySessionsChanged({ profile: 'default', sessionIds: ['s3', 't3', 's120', 't120'] })
    expect(sessionRows().byKey['default/s120']).toBeDefined()
    expect(sessionRows().order).toEqual(db.slice(0, 152).map((s) => `default/${s.id}`))
    off()
  })

  it('a row whose last activity moves back past the re-read head goes where a fresh load puts it', async () => {
    const off = watchSessions()
    await reloadSessions()
    // another process replaces s5's messages (an undo): its last activity now sorts between s60 and s61
    const byActivity = () => db.sort((a, b) => b.lastActiveAt - a.lastActiveAt)
    db[5] = { ...db[5]!, lastActiveAt: db[60]!.lastActiveAt - 0.5 }
    byActivity()
    await applySessionsChanged({ profile: 'default', sessionIds: ['s5'] })
    expect(sessionRows().order.indexOf('default/s5')).toBe(60)
    expect(sessionRows().order).toEqual(db.slice(0, 100).map((s) => `default/${s.id}`))
    // moved back past every loaded row: left for paging, which brings it in its place
    db[60] = { ...db[60]!, lastActiveAt: db[120]!.lastActiveAt - 0.5 }
    byActivity()
    await applySessionsChanged({ profile: 'default', sessionIds: ['s5'] })
    expect(sessionRows().byKey['default/s5']).toBeUndefined()
    expect(sessionRows().order).toHaveLength(99)
    off()
  })

  it('drops a row only when the host says it no longer exists', async () => {
    const off = watchSessions()
    await reloadSessions()
    db = db.filter((s) => s.id !== 's95')
    await applySessionsChanged({ profile: 'default', sessionIds: ['s95'] })
    expect(sessionRows().byKey['default/s95']).toBeUndefined()
    off()
  })

  it('ignores changes of other profiles when scoped, and marks stale while unwatched', async () => {
    setScope('work')
    await reloadSessions()
    const before = fake.calls.length
    await applySessionsChanged({ profile: 'default', sessionIds: ['s1'] })
    expect(fake.calls.length).toBe(before)
    await applySessionsChanged({ profile: 'work', sessionIds: ['s1'] })
    expect(fake.calls.length).toBe(before)
    expect(sessionRowsState().stale).toBe(true)
  })

  it('drops a page that answers an older query', async () => {
    let release!: () => void
    const slow = new Promise<void>((r) => {
      release = r
    })
    fake.handlers['sessions.list'] = async (q) => {
      if (q.sources?.[0] === 'slow') await slow
      return pageOf(q)
    }
    const first = setSessionFilters({ sources: ['slow'] })
    db = [summary('fresh')]
    await setSessionFilters({ sources: ['fast'] })
    db = [summary('stale')]
    release()
    await first
    expect(sessionRows().order).toEqual(['default/fresh'])
  })

  it('searches with highlighted snippets and ignores late answers of replaced searches', async () => {
    let release!: () => void
    const slow = new Promise<void>((r) => {
      release = r
    })
    fake.handlers['sessions.search'] = async ({ query }) => {
      if (query === 'old') await slow
      return {
        hits: [
          {
            profile: 'default',
            sessionId: 's1',
            sessionTitle: null,
            messageId: 7,
            role: 'user',
            timestamp: 1,
            snippet: [{ text: query, hit: true }]
          }
        ]
      }
    }
    // the results view is open: it shows the answer for the box's current text
    const shown = () => {
      const text = useSessions.getState().search.query
      return text.trim()
        ? (queryClient
            .getQueriesData<RequestOutput<'sessions.search'>>({ queryKey: ['sessions.search'] })
            .find(([key]) => (key[1] as { query: string }).query === text.trim())?.[1]?.hits ?? [])
        : []
    }
    const old = runSearch('old')
    await runSearch('new')
    release()
    await old
    expect(useSessions.getState().search.query).toBe('new')
    expect(shown()[0]!.snippet).toEqual([{ text: 'new', hit: true }])
    clearSearch()
    expect(shown()).toEqual([])
  })

  it('search results on screen are read again when sessions change, and a deleted session leaves them at once', async () => {
    const hit = (sessionId: string, messageId: number) => ({
      profile: 'default',
      sessionId,
      sessionTitle: null,
      messageId,
      role: 'user',
      timestamp: 1,
      snippet: [{ text: 'lisbon', hit: true }]
    })
    let hits = [hit('s1', 7)]
    fake.handlers['sessions.search'] = () => ({
      hits,
      sessions: [...new Set(hits.map((h) => h.sessionId))].map((id) => ({
        profile: 'default',
        sessionId: id,
        title: null,
        hits: 1,
        titleMatch: false
      }))
    })
    await setScope('default')
    await runSearch('lisbon')
    // the results view shows it (an observer keeps the query on screen)
    const q = queryClient.getQueryCache().find({ queryKey: ['sessions.search'], exact: false })!
    const view = observe<RequestOutput<'sessions.search'>>({ queryKey: q.queryKey, queryFn: q.options.queryFn })
    const shown = () => view.data()?.hits.map((h) => h.sessionId)
    try {
      expect(shown()).toEqual(['s1'])
      // a change in a profile the search does not cover reads nothing
      const n = fake.callsOf('sessions.search').length
      await applySearchSessionsChanged({ profile: 'work', sessionIds: ['w1'] })
      await settle()
      expect(fake.callsOf('sessions.search')).toHaveLength(n)
      // another program wrote a matching message in s2
      hits = [hit('s1', 7), hit('s2', 9)]
      await applySearchSessionsChanged({ profile: 'default', sessionIds: ['s2'] })
      await settle()
      expect(shown()).toEqual(['s1', 's2'])
      // deleting s2 (the undo window open): its hits and group go at once; undo brings them back
      deleteWithUndo('default', 's2', 'S2')
      expect(shown()).toEqual(['s1'])
      expect(view.data()!.sessions!.map((g) => g.sessionId)).toEqual(['s1'])
      undoDelete()
      await settle()
      expect(shown()).toEqual(['s1', 's2'])
    } finally {
      view.off()
    }
  })

  it('shows a failed load as an error and a toast instead of throwing', async () => {
    fake.handlers['sessions.list'] = () => {
      throw new Error('database is locked')
    }
    await reloadSessions()
    expect(sessionRowsState().error).toContain('database is locked')
    expect(useToasts.getState().toasts.at(-1)!.message).toContain('database is locked')
  })
})
