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
import { queryClient } from './server'
import { message, subagent, summary, usd } from '../test-utils/fixtures'
import { applyDelegationUpdated } from './subagents'
import {
  applyTranscriptDelegationUpdated,
  forgetTranscript,
  applyTranscriptSessionsChanged,
  jumpToEnd,
  jumpToStart,
  loadNewerPage,
  loadNewer,
  loadOlder,
  openTranscript,
  useTranscript
} from './transcript'
import { useToasts } from './toasts'
import { sessionMetaQueries } from './transcript-meta'

/** An open asks for a few screens first (not a full page); older pages follow as the reader scrolls up. */
const FIRST_PAGE = 60

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
  return { items: slice, hasMoreBefore: msgs.some((m) => m.id < first), hasMoreAfter: msgs.some((m) => m.id > last) }
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
  // Sessions an earlier test switched away from sit in the switch-back cache: forget them as a delete does.
  for (const id of ['s1', 's2', 'slow', 'fast']) forgetTranscript('default', id)
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
    const st = useTranscript.getState()
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
    const st = useTranscript.getState()
    expect(st.focusId).toBe(42)
    expect(st.byId[42]).toBeDefined()
    expect(fake.callsOf('sessions.messages')[0]).toMatchObject({ aroundId: 42 })
  })

  it('pages older messages in front without duplicates', async () => {
    await openTranscript('default', 's1')
    expect(await loadOlder()).toBe(200)
    const st = useTranscript.getState()
    expect(st.ids[0]).toBe(501 - FIRST_PAGE - 200)
    expect(new Set(st.ids).size).toBe(st.ids.length)
  })

  it('appends new messages live when sessions.changed names the open session', async () => {
    await openTranscript('default', 's1')
    msgs.push(message(501), message(502))
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['s1'] })
    expect(useTranscript.getState().ids.slice(-2)).toEqual([501, 502])
    // a change elsewhere fetches nothing
    const n = fake.calls.length
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['other'] })
    await applyTranscriptSessionsChanged({ profile: 'work', sessionIds: ['s1'] })
    expect(fake.calls.length).toBe(n)
  })

  it('a change to a chain member refreshes the open tip too', async () => {
    await openTranscript('default', 's1')
    msgs.push(message(501))
    await applyTranscriptSessionsChanged({ profile: 'default', sessionIds: ['root0'] })
    expect(useTranscript.getState().ids.at(-1)).toBe(501)
  })

  it('overlapping live loads collapse and never duplicate messages', async () => {
    await openTranscript('default', 's1')
    msgs.push(message(501))
    const a = loadNewer()
    msgs.push(message(502))
    const b = loadNewer()
    await Promise.all([a, b])
    const ids = useTranscript.getState().ids
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
    expect(useTranscript.getState().ids.at(-1)).toBe(501)
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
    expect(useTranscript.getState().ids).toEqual([1])
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
    expect(useTranscript.getState().ids).toHaveLength(FIRST_PAGE)
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

  it('a transcript in the switch-back cache keeps its details however long it waits; out of it, they may go', async () => {
    const observers = (id: string) =>
      queryClient
        .getQueryCache()
        .find({ queryKey: sessionMetaQueries('default', id).detail.queryKey })
        ?.getObserversCount()
    const page = mountPage('default', 's1')
    await openTranscript('default', 's1')
    await settle()
    expect(page.detail()).not.toBeNull()
    for (const v of views.splice(0)) v.off() // the page leaves s1
    await openTranscript('default', 's2')
    expect(observers('s1')).toBe(1) // held by the switch-back cache, not by a view
    forgetTranscript('default', 's1')
    expect(observers('s1') ?? 0).toBe(0)
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
    expect(now.ids).toHaveLength(FIRST_PAGE)
    // its details are still in the cache: the page shows them while they are read again
    expect(queryClient.getQueryData(sessionMetaQueries('default', 's1').detail.queryKey)).not.toBeUndefined()
    await back
    expect(useTranscript.getState().ids.at(-1)).toBe(501)
    expect(pages.every((q) => q.afterId === 500)).toBe(true)
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
    expect(useTranscript.getState().hasMoreAfter).toBe(false)
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
    let st = useTranscript.getState()
    expect(st.ids[0]).toBe(1)
    expect(st.ids.at(-1)).toBe(FIRST_PAGE)
    expect(st).toMatchObject({ hasMoreBefore: false, hasMoreAfter: true })
    await loadNewerPage()
    st = useTranscript.getState()
    expect(st.ids.at(-1)).toBe(FIRST_PAGE + 200)
    expect(new Set(st.ids).size).toBe(FIRST_PAGE + 200)
    await jumpToEnd()
    st = useTranscript.getState()
    expect(st.ids.at(-1)).toBe(500)
    expect(st.ids[0]).toBe(501 - FIRST_PAGE)
    expect(st).toMatchObject({ hasMoreBefore: true, hasMoreAfter: false })
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
    const st = useTranscript.getState()
    // no gap: exactly the first page, not the first page plus a page from the old view's middle
    expect(st.ids).toEqual(Array.from({ length: FIRST_PAGE }, (_, i) => i + 1))
  })
})
