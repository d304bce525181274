import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { observe } from '../test-utils/query'
import { setScope } from './app'
import { resetStores } from '../test-utils/reset-stores'
import { summary } from '../test-utils/fixtures'
import {
  deleteManyWithUndo,
  deleteWithUndo,
  sendDeletesLeftOnLeave,
  sendPendingDeleteOnLeave,
  undoDelete,
  UNDO_MS,
  usePendingDelete
} from './pending-delete'
import { applySessionsChanged, reloadSessions, runSearch, sessionRows, watchSessions } from './sessions'
import { wireBridge } from './bridge'
import { queryClient, requestQuery } from './server'
import type { SearchResult } from '@shared/contract'

let fake: FakeApi
let db: ReturnType<typeof summary>[]

beforeEach(async () => {
  resetStores()
  db = Array.from({ length: 5 }, (_, i) => summary(`s${i}`, { lastActiveAt: 2_000_000 - i }))
  fake = await installFakeApi({
    'sessions.list': () => ({ items: db, nextCursor: null }),
    'sessions.delete': ({ sessionId }) => {
      db = db.filter((s) => s.id !== sessionId)
      return { deleted: true, sessionId, detachedChildren: 0 }
    },
    // every session matches; a hit names its session
    'sessions.search': () => ({
      hits: db.map((s, i) => ({
        profile: 'default',
        sessionId: s.id,
        sessionTitle: s.title,
        messageId: i + 1,
        role: 'user',
        timestamp: 1,
        snippet: [{ text: 'match', hit: true }]
      })),
      sessions: db.map((s) => ({ profile: 'default', sessionId: s.id, title: s.title, hits: 1, titleMatch: false }))
    })
  })
})
afterEach(() => vi.useRealTimers())

/** The search box's request for 'match' in profile default with the default filters (the results view's query). */
const SEARCH_INPUT = {
  profile: 'default',
  query: 'match',
  limit: 50,
  archived: 'exclude',
  includeChildren: false
} as const

describe('delete with undo', () => {
  it('keeps the row hidden through live refreshes until the delete is sent; undo brings it back', async () => {
    const off = watchSessions()
    await reloadSessions()
    deleteWithUndo('default', 's1', 'Title s1')
    expect(sessionRows().order).not.toContain('default/s1')
    // another session streams meanwhile: the head is re-read, and the host still has s1
    await applySessionsChanged({ profile: 'default', sessionIds: ['s0'] }, true)
    await reloadSessions()
    expect(sessionRows().order).not.toContain('default/s1')
    expect(fake.callsOf('sessions.delete')).toHaveLength(0)
    undoDelete()
    await vi.waitFor(() => expect(sessionRows().order).toContain('default/s1'))
    off()
  })

  it('sends the delete after the undo window, and the row stays gone', async () => {
    vi.useFakeTimers()
    await reloadSessions()
    deleteWithUndo('default', 's2', 'Title s2')
    await vi.advanceTimersByTimeAsync(UNDO_MS)
    expect(fake.callsOf('sessions.delete')).toEqual([{ profile: 'default', sessionId: 's2' }])
    await reloadSessions()
    expect(sessionRows().order).not.toContain('default/s2')
    expect(sessionRows().order).toHaveLength(4)
  })

  it('sends a delete still in its undo window when the page goes away, once', async () => {
    vi.useFakeTimers()
    fake.handlers['sessions.bulk'] = ({ sessions }) => ({
      results: sessions.map((r) => ({ ...r, ok: true }))
    })
    deleteManyWithUndo(
      [
        { profile: 'default', sessionId: 's1' },
        { profile: 'default', sessionId: 's2' }
      ],
      '2 sessions'
    )
    sendPendingDeleteOnLeave()
    await vi.advanceTimersByTimeAsync(0)
    expect(fake.callsOf('sessions.bulk')).toEqual([
      {
        action: 'delete',
        sessions: [
          { profile: 'default', sessionId: 's1' },
          { profile: 'default', sessionId: 's2' }
        ]
      }
    ])
    expect(usePendingDelete.getState().pending).toBeNull()
    // the undo window's own timer does not send it again
    await vi.advanceTimersByTimeAsync(UNDO_MS)
    expect(fake.callsOf('sessions.bulk')).toHaveLength(1)
    // nothing pending: nothing sent
    sendPendingDeleteOnLeave()
    expect(fake.calls.filter((c) => c.name === 'sessions.bulk' || c.name === 'sessions.delete')).toHaveLength(1)
  })

  it('takes a deleted session out of the search results, keeps it out through re-reads, and undo brings it back', async () => {
    setScope('default')
    const results = observe<SearchResult>(requestQuery('sessions.search', SEARCH_INPUT, 'Search'))
    const hitIds = () => results.data()?.hits.map((h) => h.sessionId)
    const groupIds = () => results.data()?.sessions?.map((g) => g.sessionId)
    await vi.waitFor(() => expect(hitIds()).toContain('s1'))
    deleteWithUndo('default', 's1', 'Title s1')
    expect(hitIds()).not.toContain('s1')
    expect(groupIds()).not.toContain('s1')
    // a re-read during the undo window (another session changed): the host still has s1, the results do not
    await runSearch('match')
    await queryClient.refetchQueries({ queryKey: ['sessions.search'] })
    expect(hitIds()).not.toContain('s1')
    undoDelete()
    await vi.waitFor(() => expect(hitIds()).toContain('s1'))
    results.off()
  })

  it('re-reads the search results on screen when sessions of their scope change (another process deleted one)', async () => {
    const off = wireBridge(fake.api)
    setScope('default')
    const input = {
      profile: 'default',
      query: 'match',
      limit: 50,
      archived: 'exclude',
      includeChildren: false
    } as const
    const results = observe<SearchResult>(requestQuery('sessions.search', input, 'Search'))
    await vi.waitFor(() => expect(results.data()?.hits).toHaveLength(5))
    db = db.filter((s) => s.id !== 's3')
    fake.emit('sessions.changed', { profile: 'work', sessionIds: ['w1'] })
    await settle()
    expect(fake.callsOf('sessions.search')).toHaveLength(1) // another profile's change
    fake.emit('sessions.changed', { profile: 'default', sessionIds: ['s3'] })
    await vi.waitFor(() => expect(results.data()?.hits.map((h) => h.sessionId)).not.toContain('s3'))
    results.off()
    off()
  })
})

/** This origin's storage, as a page and the page loaded after it share it (node has none of its own). */
function memoryStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  const m = new Map<string, string>()
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, String(v)),
    removeItem: (k) => void m.delete(k)
  }
}

describe('delete on leaving the page, over Electron IPC', () => {
  // set by hand: installFakeApi's unstubAllGlobals would take a stubbed one away at the next load
  beforeEach(() => void Object.assign(globalThis, { localStorage: memoryStorage() }))
  afterEach(() => void Reflect.deleteProperty(globalThis, 'localStorage'))

  it('keeps a delete the main process never answered (the page died) and sends it on the next load', async () => {
    // the IPC message leaves, but the window is gone before any answer
    fake.handlers['sessions.delete'] = () => new Promise(() => {})
    deleteWithUndo('default', 's3', 'Title s3')
    sendPendingDeleteOnLeave()
    await settle()
    expect(fake.callsOf('sessions.delete')).toEqual([{ profile: 'default', sessionId: 's3' }])

    // the next load: a new page, the same storage; the host answers this time
    resetStores()
    const next = await installFakeApi({
      'sessions.list': () => ({ items: db, nextCursor: null }),
      'sessions.bulk': ({ sessions }) => {
        db = db.filter((s) => !sessions.some((r) => r.sessionId === s.id))
        return { results: sessions.map((r) => ({ ...r, ok: true })) }
      }
    })
    await sendDeletesLeftOnLeave()
    expect(next.callsOf('sessions.bulk')).toEqual([
      { action: 'delete', sessions: [{ profile: 'default', sessionId: 's3' }] }
    ])
    expect(db.map((s) => s.id)).not.toContain('s3')
  })

  it('forgets a delete once the main process answered it, also "No session" (already gone)', async () => {
    fake.handlers['sessions.bulk'] = ({ sessions }) => ({ results: sessions.map((r) => ({ ...r, ok: true })) })
    deleteManyWithUndo(
      [
        { profile: 'default', sessionId: 's1' },
        { profile: 'default', sessionId: 's2' }
      ],
      '2 sessions'
    )
    sendPendingDeleteOnLeave()
    await settle()
    fake.handlers['sessions.delete'] = ({ sessionId }) => {
      throw Object.assign(new Error(`No session '${sessionId}'`), { code: 'not_found' })
    }
    deleteWithUndo('default', 's4', 'Title s4')
    sendPendingDeleteOnLeave()
    await settle()
    expect(fake.callsOf('sessions.delete')).toEqual([{ profile: 'default', sessionId: 's4' }])

    resetStores()
    const next = await installFakeApi({ 'sessions.list': () => ({ items: db, nextCursor: null }) })
    await sendDeletesLeftOnLeave()
    expect(next.calls.filter((c) => c.name === 'sessions.bulk' || c.name === 'sessions.delete')).toEqual([])
  })
})
