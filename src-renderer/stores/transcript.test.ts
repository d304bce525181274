import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  CaduceusError,
  type Message,
  type MessageQuery,
  type SessionCost,
  type SessionDetail,
  type SubagentList
} from '@shared/contract'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { observe } from '../test-utils/query'
import { resetStores } from '../test-utils/reset-stores'
import { skipToken } from '@tanstack/react-query'
import { queryClient, requestKey } from './server'
import { message, subagent, summary, usd } from '../test-utils/fixtures'
import { applyDelegationUpdated } from './subagents'
import {
  jumpToEnd,
  jumpToStart,
  loadNewerPage,
  loadNewer,
  loadOlder,
  openTranscript,
  openWindow,
  useTranscript
} from './transcript'
import { applyTranscriptDelegationUpdated, applyTranscriptSessionsChanged } from './transcript-live'
import { cachedWindow, forgetTranscript } from './transcript-window'
import { useToasts } from './toasts'
import { sessionMetaQueries } from './transcript-meta'

/** An open asks for a few screens first (not a full page); older pages follow as the reader scrolls up. */
const FIRST_PAGE = 60

/** The open transcript's loaded window (query data). */
const win = () => openWindow()!

let fake: FakeApi
let msgs: Message[]
const views: Array<{ off: () => void }> = []

/**
 * The session page mounted: its details observed as `useTranscriptMeta` keeps them (the page mounts them as it
 * opens the transcript, so their reads and the store's are in flight together).
 */
function mountPage(profile: string, sessionId: string) {
  const q = sessionMetaQueries(profile, sessionId)
  const detail = observe<SessionDetail>(q.detail)
  const cost = observe<SessionCost>(q.cost)
  const children = observe<SubagentList>(q.children)
  views.push(detail, cost, children)
  return {
    detail: () => detail.data() ?? null,
    cost: () => cost.data() ?? null,
    children: () => children.data()?.items ?? []
  }
}

afterEach(() => {
  for (const v of views.splice(0)) v.off()
})

function page(q: MessageQuery) {
  const limit = q.limit ?? 200
  let slice: Message[]
  if (q.afterId != null) slice = msgs.filter((m) => m.id > q.afterId!).slice(0, limit)
  else if (q.beforeId != null) slice = msgs.filter((m) => m.id < q.beforeId!).slice(-limit)
  else if (q.aroundId != null) {
    const i = msgs.findIndex((m) => m.id >= q.aroundId!)
    slice = msgs.slice(Math.max(0, i - limit / 2), i + limit / 2)
  } else slice = msgs.slice(0, limit)
  const first = slice[0]?.id ?? 0,
    last = slice.at(-1)?.id ?? 0
  // what the host shows of the caller's range (`msgs` is what it shows: a rewound row is not in it)
  const range = msgs.filter((m) => q.sinceId != null && m.id >= q.sinceId && m.id <= q.afterId!)
  return {
    items: slice,
    hasMoreBefore: msgs.some((m) => m.id < first),
    hasMoreAfter: msgs.some((m) => m.id > last),
    ...(q.sinceId != null && q.afterId != null
      ? { held: { visible: range.length, compacted: range.filter((m) => m.compacted).length } }
      : {})
  }
}

const detail = (id: string) => ({
  summary: summary(id),
  lineage: {
    chain: [
      { id: 'root0', title: null, kind: 'root' as const, startedAt: 1, endReason: 'compression', messageCount: 3 }
    ],
    parent: null,
    branches: [],
    delegateChildren: [],
    otherChildren: []
  },
  usage: [],
  cwd: '/tmp',
  gitBranch: 'main',
  apiCallCount: 3
})

beforeEach(async () => {
  resetStores()
  msgs = Array.from({ length: 500 }, (_, i) => message(i + 1))
  fake = await installFakeApi({
    'sessions.messages': page,
    'sessions.get': ({ sessionId }) => detail(sessionId),
    'costs.session': ({ profile, sessionId }) => ({
      profile,
      sessionId,
      own: usd(1),
      children: [],
      childrenTotal: usd(0.5),
      inclusive: usd(1.5),
      perModel: [],
      perTurn: []
    }),
    'subagents.list': () => ({ items: [subagent('sa-1')], maxRetained: 8, ttlHours: 24 })
  })
})

describe('transcript store', () => {
  it('opens at the latest page with lineage, cost split and children', async () => {
    const view = mountPage('default', 's1')
    await openTranscript('default', 's1')
    await settle()
    const st = win()
    expect(fake.callsOf('sessions.messages')[0]).toMatchObject({
      beforeId: Number.MAX_SAFE_INTEGER, // before any id the host can hold: the newest page
      limit: FIRST_PAGE
    })
    expect(st.ids[0]).toBe(501 - FIRST_PAGE)
    expect(st.ids.at(-1)).toBe(500)
    expect(st.hasMoreBefore).toBe(true)
    expect(view.detail()!.lineage.chain[0]!.id).toBe('root0')
    expect(view.cost()!.inclusive.usd).toBe(1.5)
    expect(view.children()[0]!.childId).toBe('sa-1')
    expect(fake.callsOf('subagents.list')[0]).toMatchObject({ parentSessionId: 's1' })
    // the page's queries and the store's own read of the chain share one fetch
    expect(fake.callsOf('sessions.get')).toHaveLength(1)
  })

  it('opens around a search hit and keeps it as the focus', async () => {
    await openTranscript('default', 's1', 42)
    expect(useTranscript.getState().focusId).toBe(42)
    expect(win().byId[42]).toBeDefined()
    expect(fake.callsOf('sessions.messages')[0]).toMatchObject({ aroundId: 42 })
  })

  it('pages older messages in front without duplicates', async () => {
    await openTranscript('default', 's1')
    expect(await loadOlder()).toBe(200)
    const st = win()
    expect(st.ids[0]).toBe(501 - FIRST_PAGE - 200)
    expect(new Set(st.ids).size).toBe(st.ids.length)
  })

  it('appends new messages live when sessions.changed names the open session', async () => {
    await openTranscript('default', 's1')
    msgs.push(message(501), message(502))
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['s1'] })
    expect(win().ids.slice(-2)).toEqual([501, 502])
    // a change elsewhere fetches nothing
    const n = fake.calls.length
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['other'] })
    await applyTranscriptSessionsChanged({ profile: 'work', sessionIds: ['s1'] })
    expect(fake.calls.length).toBe(n)
  })

  it('a rewind by another program reaches the open transcript: rows it set inactive go, what it appended comes', async () => {
    await openTranscript('default', 's1')
    await loadOlder()
    expect(win().ids).toHaveLength(FIRST_PAGE + 200)
    // upstream's rewind: the rows from 480 on go inactive (the host no longer shows them), then a new message 501
    msgs = [...msgs.slice(0, 479), message(501)]
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['s1'] })
    await settle()
    expect(win().ids.slice(-3)).toEqual([478, 479, 501])
    expect(win().ids).toHaveLength(FIRST_PAGE + 200 - 21 + 1)
    expect(win().byId[480]).toBeUndefined()
    // only the range it holds was read again (from its first message), not the whole session
    expect(fake.callsOf('sessions.messages').some((q) => q.afterId === 501 - FIRST_PAGE - 200 - 1)).toBe(true)
    // nothing changed: no second read of the range
    const n = fake.callsOf('sessions.messages').length
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['s1'] })
    expect(fake.callsOf('sessions.messages')).toHaveLength(n + 1)
  })

  it('a compaction by another program flags the rows the open transcript shows', async () => {
    await openTranscript('default', 's1')
    msgs = msgs.map((m) => (m.id >= 450 && m.id <= 460 ? { ...m, compacted: true as const } : m))
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['s1'] })
    await settle()
    expect(win().ids).toHaveLength(FIRST_PAGE)
    expect(win().ids.filter((id) => win().byId[id]!.compacted)).toEqual(Array.from({ length: 11 }, (_, i) => 450 + i))
  })

  it('a change to a chain member refreshes the open tip too', async () => {
    await openTranscript('default', 's1')
    msgs.push(message(501))
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['root0'] })
    expect(win().ids.at(-1)).toBe(501)
  })

  it('overlapping live loads collapse and never duplicate messages', async () => {
    await openTranscript('default', 's1')
    msgs.push(message(501))
    const a = loadNewer()
    msgs.push(message(502))
    const b = loadNewer()
    await Promise.all([a, b])
    const ids = win().ids
    expect(ids.slice(-2)).toEqual([501, 502])
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('a burst of changes to the open session reads the new messages and the details once', async () => {
    mountPage('default', 's1')
    await openTranscript('default', 's1')
    const [pages, details] = [fake.callsOf('sessions.messages').length, fake.callsOf('sessions.get').length]
    msgs.push(message(501))
    await Promise.all(
      Array.from({ length: 5 }, () => applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['s1'] }))
    )
    expect(win().ids.at(-1)).toBe(501)
    expect(fake.callsOf('sessions.messages')).toHaveLength(pages + 1)
    expect(fake.callsOf('sessions.get')).toHaveLength(details + 1)
  })

  it('drops answers for a session that is no longer open', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    fake.handlers['sessions.messages'] = async (q) => {
      if (q.sessionId === 'slow') await gate
      return page(q)
    }
    const first = openTranscript('default', 'slow')
    msgs = [message(1, 'fast')]
    await openTranscript('default', 'fast')
    release()
    await first
    expect(useTranscript.getState().sessionId).toBe('fast')
    expect(win().ids).toEqual([1])
    // not kept for a switch-back either: that open was left before its page came
    expect(cachedWindow('default', 'slow')).toBeUndefined()
  })

  it('refreshes children when one of its delegations changes', async () => {
    const view = mountPage('default', 's1')
    await openTranscript('default', 's1')
    fake.handlers['subagents.list'] = () => ({
      items: [subagent('sa-1', { state: 'tombstoned' })],
      maxRetained: 8,
      ttlHours: 24
    })
    await applyTranscriptDelegationUpdated({ profile: 'default', delegationId: 'd', parentSessionId: 's1' })
    expect(view.children()[0]!.state).toBe('tombstoned')
  })

  it('a delegate child it does not list yet refreshes its delegates and cost split as it starts, runs and ends', async () => {
    const view = mountPage('default', 's1')
    await openTranscript('default', 's1')
    await settle()
    expect(view.detail()!.lineage.delegateChildren).toEqual([])
    const child = { id: 'c1', title: null, kind: 'delegate' as const, startedAt: 2, endReason: null, messageCount: 1 }
    fake.handlers['sessions.get'] = ({ sessionId }) => {
      const d = detail(sessionId)
      return { ...d, lineage: { ...d.lineage, delegateChildren: [child] } }
    }
    fake.handlers['costs.session'] = ({ profile, sessionId }) => ({
      profile,
      sessionId,
      own: usd(1),
      children: [],
      childrenTotal: usd(0.75),
      inclusive: usd(1.75),
      perModel: [],
      perTurn: []
    })
    const reads = () => fake.callsOf('sessions.messages').length
    const before = reads()
    // another process's delegate of s1 commits: the event names only the child, and its parent
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['c1'], parentIds: ['s1'] })
    await settle()
    expect(view.detail()!.lineage.delegateChildren.map((c) => c.id)).toEqual(['c1'])
    expect(view.cost()!.inclusive.usd).toBe(1.75)
    expect(reads()).toBe(before) // the open transcript's own messages did not change
    // a child of another session, or of another profile, is not this page's
    const gets = fake.callsOf('sessions.get').length
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['c9'], parentIds: ['s9'] })
    await applyTranscriptSessionsChanged({ profile: 'work', sessionIds: ['c1'], parentIds: ['s1'] })
    await settle()
    expect(fake.callsOf('sessions.get')).toHaveLength(gets)
  })

  it('keeps the transcript when only the metadata calls fail', async () => {
    fake.handlers['costs.session'] = () => {
      throw new Error('pricing unavailable')
    }
    const view = mountPage('default', 's1')
    await openTranscript('default', 's1')
    await settle()
    expect(win().ids).toHaveLength(FIRST_PAGE)
    expect(view.cost()).toBeNull()
    expect(view.detail()).not.toBeNull()
    // the rest of the page stands, and a missing cost is no toast: refetched on every event, it would be one per event
    expect(useToasts.getState().toasts).toHaveLength(0)
  })
})

describe('the details as queries', () => {
  it('a delegation elsewhere in the profile does not re-read the open session’s subagents', async () => {
    mountPage('default', 's1')
    await openTranscript('default', 's1')
    await settle()
    const before = fake.callsOf('subagents.list').length
    await applyDelegationUpdated({ profile: 'default', delegationId: 'd', parentSessionId: 'other' })
    expect(fake.callsOf('subagents.list')).toHaveLength(before)
    await applyDelegationUpdated({ profile: 'default', delegationId: 'd', parentSessionId: 's1' })
    expect(fake.callsOf('subagents.list')).toHaveLength(before + 1)
  })

  it('a transcript kept for switching back keeps its details as long as its window; out of the cache, both go', async () => {
    const cached = (key: readonly unknown[]) => queryClient.getQueryCache().find({ queryKey: key, exact: true })
    const detailKey = sessionMetaQueries('default', 's1').detail.queryKey
    const windowKey = requestKey('sessions.messages', { profile: 'default', sessionId: 's1' })
    const page = mountPage('default', 's1')
    await openTranscript('default', 's1')
    await settle()
    expect(page.detail()).not.toBeNull()
    for (const v of views.splice(0)) v.off() // the page leaves s1
    await openTranscript('default', 's2')
    expect(queryClient.getQueryData(detailKey)).toBeDefined()
    expect(cachedWindow('default', 's1')).toBeDefined()
    // no view holds them now: they wait out the same time, so neither outlives the other
    expect(cached(detailKey)!.gcTime).toBe(cached(windowKey)!.gcTime)
    forgetTranscript('default', 's1')
    expect(queryClient.getQueryData(detailKey)).toBeUndefined()
    expect(cachedWindow('default', 's1')).toBeUndefined()
  })
})

describe('switching back to a recent transcript', () => {
  it('shows it at once without a page request, then catches up with what was appended meanwhile', async () => {
    await openTranscript('default', 's1')
    await openTranscript('default', 's2')
    msgs.push(message(501))
    const pages: MessageQuery[] = []
    fake.handlers['sessions.messages'] = (q) => {
      pages.push(q)
      return page(q)
    }
    const back = openTranscript('default', 's1')
    const now = useTranscript.getState()
    expect(now.sessionId).toBe('s1')
    expect(now.loading).toBe(false)
    expect(win().ids).toHaveLength(FIRST_PAGE)
    // its details are still in the cache: the page shows them while they are read again
    expect(queryClient.getQueryData(sessionMetaQueries('default', 's1').detail.queryKey)).not.toBeUndefined()
    await back
    expect(win().ids.at(-1)).toBe(501)
    expect(pages.every((q) => q.afterId === 500)).toBe(true)
  })

  it('the window is the query cache’s: a view on it sees the switch-back at once and the catch-up after', async () => {
    await openTranscript('default', 's1')
    await openTranscript('default', 's2')
    msgs.push(message(501))
    const view = observe<{ ids: number[] }>({
      queryKey: requestKey('sessions.messages', { profile: 'default', sessionId: 's1' }),
      queryFn: skipToken
    })
    views.push(view)
    const pages = fake.callsOf('sessions.messages').length
    const back = openTranscript('default', 's1')
    expect(view.data()!.ids.at(-1)).toBe(500) // from the cache, before any reply
    await back
    expect(view.data()!.ids.at(-1)).toBe(501)
    expect(fake.callsOf('sessions.messages').slice(pages)).toEqual([expect.objectContaining({ afterId: 500 })])
  })

  it('keeps the last four transcripts left; one left longer ago opens from a fresh page', async () => {
    for (const id of ['s1', 's2', 's3', 's4', 's5', 's6']) await openTranscript('default', id)
    expect(cachedWindow('default', 's1')).toBeUndefined()
    for (const id of ['s2', 's3', 's4', 's5']) expect(cachedWindow('default', id)).toBeDefined()
    const pages = fake.callsOf('sessions.messages').length
    await openTranscript('default', 's2')
    expect(fake.callsOf('sessions.messages').slice(pages)).toEqual([expect.objectContaining({ afterId: 500 })])
    await openTranscript('default', 's1')
    expect(fake.callsOf('sessions.messages').at(-1)).toMatchObject({ beforeId: Number.MAX_SAFE_INTEGER })
    // s3 is now the one left longest ago: s2 came back and s6 was left since
    expect(cachedWindow('default', 's3')).toBeUndefined()
  })

  it('a transcript left after Home opens at its newest again, not at the start it was left on', async () => {
    await openTranscript('default', 's1')
    await jumpToStart()
    await openTranscript('default', 's2')
    await openTranscript('default', 's1')
    expect(win().ids.at(-1)).toBe(500)
    expect(win()).toMatchObject({ hasMoreBefore: true, hasMoreAfter: false })
  })

  it('a session deleted meanwhile opens as not found, without an error toast', async () => {
    await openTranscript('default', 's1')
    await openTranscript('default', 's2')
    fake.handlers['sessions.get'] = () => {
      throw new CaduceusError('not_found', 'gone', 'sessionId')
    }
    await openTranscript('default', 's1')
    expect(useTranscript.getState().notFound).toBe(true)
    expect(useToasts.getState().toasts).toHaveLength(0)
  })
})

describe('transcript end detection', () => {
  it('treats an empty page after the last id as the end even if the host flags more', async () => {
    await openTranscript('default', 's1')
    fake.handlers['sessions.messages'] = (q) =>
      q.afterId != null ? { items: [], hasMoreBefore: true, hasMoreAfter: true } : page(q)
    await loadNewer()
    expect(win().hasMoreAfter).toBe(false)
  })
})

describe('Home and End', () => {
  it('reads the first page directly from the start, pages forward from it, and End returns to the newest', async () => {
    await openTranscript('default', 's1')
    const before = fake.callsOf('sessions.messages').length
    expect(await jumpToStart()).toBe(1)
    // one request from the start (afterId 0), not a walk back through every older page
    expect(fake.callsOf('sessions.messages').slice(before)).toEqual([
      expect.objectContaining({ sessionId: 's1', afterId: 0, limit: FIRST_PAGE })
    ])
    let st = win()
    expect(st.ids[0]).toBe(1)
    expect(st.ids.at(-1)).toBe(FIRST_PAGE)
    expect(st).toMatchObject({ hasMoreBefore: false, hasMoreAfter: true })
    await loadNewerPage()
    st = win()
    expect(st.ids.at(-1)).toBe(FIRST_PAGE + 200)
    expect(new Set(st.ids).size).toBe(FIRST_PAGE + 200)
    await jumpToEnd()
    st = win()
    expect(st.ids.at(-1)).toBe(500)
    expect(st.ids[0]).toBe(501 - FIRST_PAGE)
    expect(st).toMatchObject({ hasMoreBefore: true, hasMoreAfter: false })
  })

  it('drops a live append that lands after Home replaced the window', async () => {
    await openTranscript('default', 's1')
    let home!: () => void
    let live!: () => void
    const homeHeld = new Promise<void>((r) => (home = r))
    const liveHeld = new Promise<void>((r) => (live = r))
    fake.handlers['sessions.messages'] = async (q) => {
      if (q.afterId === 0) await homeHeld
      else if (q.afterId != null) await liveHeld
      return page(q)
    }
    const start = jumpToStart()
    msgs.push(message(501))
    const newer = loadNewer()
    await settle() // the live pass has asked for what came after 500
    home()
    await start
    live()
    await newer
    // no gap: the first page, not the first page plus the newest message
    expect(win().ids).toEqual(Array.from({ length: FIRST_PAGE }, (_, i) => i + 1))
    expect(win().hasMoreAfter).toBe(true)
  })

  it('drops an older page asked for before Home replaced the view', async () => {
    await openTranscript('default', 's1')
    // the older page answers only after Home's page has landed
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    fake.handlers['sessions.messages'] = async (q) => {
      if (q.beforeId != null) await held
      return page(q)
    }
    const older = loadOlder()
    await jumpToStart()
    release()
    await older
    const st = win()
    // no gap: exactly the first page, not the first page plus a page from the old view's middle
    expect(st.ids).toEqual(Array.from({ length: FIRST_PAGE }, (_, i) => i + 1))
  })
})

describe('a compression chain read as one conversation', () => {
  // root (ids 1-5) → mid (6-10) → tip (11-15); each continuation carries copies of its parent's last two rows, which
  // the host leaves out of a parent page asked for with `carriedBy` (the segment after it)
  const SEGMENTS = { root: [1, 5], mid: [6, 10], tip: [11, 15] } as const
  const NEXT: Record<string, string> = { root: 'mid', mid: 'tip' }
  function segmentPage(q: MessageQuery) {
    const [lo, hi] = SEGMENTS[q.sessionId as keyof typeof SEGMENTS]
    const all = Array.from({ length: hi - lo + 1 }, (_, i) => message(lo + i, q.sessionId))
    const shown = q.carriedBy && q.carriedBy === NEXT[q.sessionId] ? all.slice(0, -2) : all
    msgs = shown
    return page(q)
  }
  const chainDetail = (id: string) => {
    const d = detail(id)
    const ref = (sid: string) => ({ ...d.lineage.chain[0]!, id: sid, endReason: sid === 'tip' ? null : 'compression' })
    return { ...d, lineage: { ...d.lineage, chain: ['root', 'mid', 'tip'].map(ref) } }
  }

  beforeEach(() => {
    fake.handlers['sessions.messages'] = segmentPage
    fake.handlers['sessions.get'] = ({ sessionId }) => chainDetail(sessionId)
  })

  it('"load older" reads each earlier segment without the rows the next one carries', async () => {
    await openTranscript('default', 'tip')
    await settle()
    while ((await loadOlder()) > 0);
    expect(win().ids).toEqual([1, 2, 3, 6, 7, 8, 11, 12, 13, 14, 15])
    const reads = fake.callsOf('sessions.messages')
    expect(reads.filter((q) => q.sessionId === 'root').every((q) => q.carriedBy === 'mid')).toBe(true)
    expect(reads.filter((q) => q.sessionId === 'mid').every((q) => q.carriedBy === 'tip')).toBe(true)
    expect(reads.filter((q) => q.sessionId === 'tip').every((q) => q.carriedBy === undefined)).toBe(true)
  })

  it('Home and the pages forward from it read the chain the same way', async () => {
    await openTranscript('default', 'tip')
    await settle()
    expect(await jumpToStart()).toBe(1)
    for (let i = 0; i < 6 && win().hasMoreAfter; i++) await loadNewerPage()
    expect(win().ids).toEqual([1, 2, 3, 6, 7, 8, 11, 12, 13, 14, 15])
  })

  it('an earlier segment opened on its own (a search hit in it) shows every row it holds', async () => {
    await openTranscript('default', 'mid', 9)
    await settle()
    expect(win().ids).toEqual([6, 7, 8, 9, 10])
    expect(fake.callsOf('sessions.messages').every((q) => q.carriedBy === undefined)).toBe(true)
  })
})
