import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { installFakeApi, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { summary } from '../test-utils/fixtures'
import { deleteWithUndo, undoDelete, UNDO_MS } from './pending-delete'
import { applySessionsChanged, reloadSessions, sessionRows, watchSessions } from './sessions'

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
    }
  })
})
afterEach(() => vi.useRealTimers())

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
})
