import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { beforeEach, describe, expect, it } from 'vitest'
import type { ProfileProblem, SearchResult } from '@shared/contract'
import { installFakeApi, settle, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { message, summary, usd, zeroTokens } from '../test-utils/fixtures'
import { observe } from '../test-utils/query'
import { setScope, useApp } from './app'
import { resyncAfterReconnect, retryLockedReads, wireBridge } from './bridge'
import { useLocks } from './locks'
import { LockedProfileLine } from '../app/LockedProfileLine'
import { requestQuery } from './server'
import { useMemory } from './memory'
import { sessionRows, watchSessions } from './sessions'
import { openTranscript, openWindow, useTranscript } from './transcript'
import { useTurns } from './turns'

let fake: FakeApi
let msgs = [message(1), message(2)]

beforeEach(async () => {
  resetStores()
  msgs = [message(1), message(2)]
  fake = await installFakeApi({
    'sessions.list': () => ({ items: [summary('s1', { messageCount: msgs.length })], nextCursor: null }),
    'sessions.messages': (q) => {
      const items = q.afterId != null ? msgs.filter((m) => m.id > q.afterId!) : msgs
      return { items, hasMoreBefore: false, hasMoreAfter: false }
    },
    'sessions.get': () => ({
      summary: summary('s1'),
      lineage: { chain: [], parent: null, branches: [], delegateChildren: [], otherChildren: [] },
      usage: [],
      cwd: null,
      gitBranch: null,
      apiCallCount: 0
    }),
    'costs.session': () => {
      throw new Error('n/a')
    },
    'subagents.list': () => ({ items: [], maxRetained: 8, ttlHours: 24 }),
    'gateway.state': () => ({ agents: [], cap: 8, idleTtlSeconds: 3600 }),
    'costs.summary': () => ({ profiles: [], total: usd(0), byModel: [], topSessions: [], byDay: [], tokensByDay: [] }),
    'app.info': () => ({
      version: '0.1.0',
      root: '/r',
      headless: true,
      demo: false,
      logCommand: 'x',
      profiles: [{ name: 'default', home: '/h', isDefault: true, sessionCount: 1 }]
    }),
    'profiles.list': () => [
      { name: 'default', home: '/h', isDefault: true, sessionCount: 1 },
      { name: 'new', home: '/n', isDefault: false, sessionCount: 0 }
    ]
  })
})

describe('a profile another program holds locked', () => {
  it('is named while its reads wait, then cleared; one that gave up is read again by Retry', async () => {
    const off = wireBridge(fake.api)
    fake.emit('store.lockChanged', {
      profile: 'default',
      request: 'sessions.messages',
      state: 'waiting',
      cause: 'locked'
    })
    fake.emit('store.lockChanged', { profile: 'default', request: 'costs.summary', state: 'waiting', cause: 'locked' })
    expect(useLocks.getState().locks).toEqual({ default: { waiting: 2, gaveUp: false, replaced: false } })
    fake.emit('store.lockChanged', { profile: 'default', request: 'costs.summary', state: 'cleared', cause: 'locked' })
    expect(useLocks.getState().locks).toEqual({})

    // the host gave up on the transcript's first page: an error, an empty window, and a retry by hand
    const messages = fake.handlers['sessions.messages']!
    fake.handlers['sessions.messages'] = () => {
      throw { code: 'unavailable', message: 'The session database is locked by another program' }
    }
    fake.emit('store.lockChanged', {
      profile: 'default',
      request: 'sessions.messages',
      state: 'waiting',
      cause: 'locked'
    })
    await openTranscript('default', 's1')
    fake.emit('store.lockChanged', {
      profile: 'default',
      request: 'sessions.messages',
      state: 'gave_up',
      cause: 'locked'
    })
    expect(useLocks.getState().locks).toEqual({ default: { waiting: 0, gaveUp: true, replaced: false } })
    expect(useTranscript.getState().error).toContain('locked by another program')
    fake.handlers['sessions.messages'] = messages
    await retryLockedReads()
    await settle()
    expect(useLocks.getState().locks).toEqual({})
    expect(openWindow()!.ids).toEqual([1, 2])
    expect(useTranscript.getState().error).toBeNull()
    off()
  })
})

describe('a profile whose state.db was replaced (a restore)', () => {
  it('is named as replaced and being reopened, not as locked, while its reads wait out the grace', () => {
    const off = wireBridge(fake.api)
    fake.emit('store.lockChanged', {
      profile: 'default',
      request: 'sessions.list',
      state: 'waiting',
      cause: 'replaced'
    })
    expect(useLocks.getState().locks).toEqual({ default: { waiting: 1, gaveUp: false, replaced: true } })
    // the banner's line for it
    const line = renderToStaticMarkup(
      createElement(LockedProfileLine, { profile: 'default', lock: useLocks.getState().locks.default! })
    )
    expect(line).toContain('was replaced, as when a backup is restored over it, and is being reopened')
    expect(line).not.toContain('locked by another program')
    fake.emit('store.lockChanged', {
      profile: 'default',
      request: 'sessions.list',
      state: 'cleared',
      cause: 'replaced'
    })
    expect(useLocks.getState().locks).toEqual({})
    off()
  })
})

describe('event bridge', () => {
  it('routes each host event to the stores that show it', async () => {
    const off = wireBridge(fake.api)
    const unwatch = watchSessions()
    await openTranscript('default', 's1')
    await settle()

    msgs.push(message(3))
    fake.emit('sessions.changed', { profile: 'default', sessionIds: ['s1'] })
    await settle()
    expect(openWindow()!.ids).toEqual([1, 2, 3])
    expect(sessionRows().byKey['default/s1']!.messageCount).toBe(3)

    fake.emit('turn.started', {
      turnId: 't',
      profile: 'default',
      sessionId: 's1',
      cache: 'external_write',
      model: null,
      demo: false
    })
    fake.emit('turn.delta', { turnId: 't', profile: 'default', sessionId: 's1', kind: 'text', text: 'hi' })
    msgs.push(message(4))
    fake.emit('turn.delta', { turnId: 't', profile: 'default', sessionId: 's1', kind: 'message_saved', messageId: 4 })
    fake.emit('turn.finished', {
      turnId: 't',
      profile: 'default',
      sessionId: 's1',
      status: 'completed',
      tokens: zeroTokens,
      cost: usd(0.1),
      apiCalls: 1
    })
    await settle()
    expect(useTurns.getState().byId.t!.status).toBe('completed')
    expect(openWindow()!.ids).toContain(4)

    fake.emit('memory.activity', {
      id: 1,
      profile: 'default',
      provider: 'builtin',
      kind: 'write',
      name: 'memory',
      sessionId: 's1',
      turnId: 't',
      ok: true,
      latencyMs: 1,
      summary: 'saved',
      size: 5,
      at: 1
    })
    expect(useMemory.getState().order).toEqual([1])

    fake.emit('profiles.changed', { profiles: ['default', 'new'] })
    await settle()
    expect(useApp.getState().profiles.map((p) => p.name)).toEqual(['default', 'new'])

    off()
    unwatch()
    fake.emit('memory.activity', {
      id: 2,
      profile: 'default',
      provider: 'builtin',
      kind: 'write',
      name: 'memory',
      sessionId: null,
      turnId: null,
      ok: true,
      latencyMs: 1,
      summary: 'x',
      size: 1,
      at: 2
    })
    expect(useMemory.getState().order).toEqual([1])
  })

  it("a memory file's change re-reads the notices above the sessions list, as the rail's", async () => {
    // the host names a MEMORY.md / USER.md the agent's prompt goes without among a profile's notices
    let notices: ProfileProblem[] = [{ profile: 'default', reason: 'USER.md is not valid UTF-8' }]
    const list = fake.handlers['sessions.list']!
    fake.handlers['sessions.list'] = async (q) => ({ ...(await list(q)), notices })
    fake.handlers['sessions.search'] = () => ({ hits: [], notices })
    const off = wireBridge(fake.api)
    const unwatch = watchSessions()
    const input = { profile: 'all', query: 'tea', limit: 50, archived: 'exclude', includeChildren: false } as const
    const search = observe<SearchResult>(requestQuery('sessions.search', input, 'Search'))
    await settle()
    expect(sessionRows().notices).toEqual(notices)
    notices = [...notices, { profile: 'default', reason: 'MEMORY.md is not valid UTF-8' }]
    fake.emit('memory.changed', { profile: 'default' })
    await settle()
    expect(sessionRows().notices).toEqual(notices)
    expect(search.data()?.notices).toEqual(notices) // the same banner above search results
    search.off()
    expect(useApp.getState().profiles.map((p) => p.name)).toEqual(['default', 'new']) // the rail's read
    // fixed again: a live pass takes the host's word, none, over the ones it had
    notices = []
    fake.emit('memory.changed', { profile: 'default' })
    await settle()
    expect(sessionRows().notices).toBeUndefined()
    unwatch()
    off()
  })

  it('invalidates the queries an event changes: the ones on screen refetch, the rest only go stale', async () => {
    const off = wireBridge(fake.api)
    setScope('work')
    const gateway = observe(requestQuery('gateway.state', {}, 'Loading gateway state'))
    const subagents = observe(
      requestQuery('subagents.list', { profile: 'work', includeTombstoned: false }, 'Loading subagents')
    )
    await settle()
    // read once while the Costs page was open, then closed: cached, no longer observed
    const costs = observe(requestQuery('costs.summary', { profile: 'work', days: 30 }, 'Loading costs'))
    await settle()
    costs.off()
    const reads = (name: 'gateway.state' | 'subagents.list' | 'costs.summary') => fake.callsOf(name).length
    expect([reads('gateway.state'), reads('subagents.list'), reads('costs.summary')]).toEqual([1, 1, 1])

    fake.emit('gateway.changed', { reason: 'evicted' })
    await settle()
    expect(reads('gateway.state')).toBe(2)

    fake.emit('delegation.updated', { profile: 'default', delegationId: 'd', parentSessionId: null })
    await settle()
    expect(reads('subagents.list')).toBe(1) // another profile than the one on screen
    fake.emit('delegation.updated', { profile: 'work', delegationId: 'd', parentSessionId: null })
    await settle()
    expect(reads('subagents.list')).toBe(2)

    // after a reconnect every cached read is stale; only what is on screen is read again
    await resyncAfterReconnect()
    await settle()
    expect([reads('gateway.state'), reads('subagents.list'), reads('costs.summary')]).toEqual([3, 3, 1])

    gateway.off()
    subagents.off()
    off()
    fake.emit('gateway.changed', { reason: 'evicted' })
    await settle()
    expect(reads('gateway.state')).toBe(3)
  })

  it('a burst of session changes reads the Costs page on screen once again, for the profiles it covers', async () => {
    const off = wireBridge(fake.api)
    const costs = observe(requestQuery('costs.summary', { profile: 'all', days: 30 }, 'Loading costs'))
    const work = observe(requestQuery('costs.summary', { profile: 'work', days: 7 }, 'Loading costs'))
    await settle()
    const reads = (profile: string) => fake.callsOf('costs.summary').filter((q) => q.profile === profile).length
    expect([reads('all'), reads('work')]).toEqual([1, 1])
    // another process adds cost to a parent and its child: two commits, one burst
    fake.emit('sessions.changed', { profile: 'default', sessionIds: ['parent'] })
    fake.emit('sessions.changed', { profile: 'default', sessionIds: ['child'] })
    await settle()
    expect([reads('all'), reads('work')]).toEqual([2, 1])
    fake.emit('sessions.changed', { profile: 'work', sessionIds: ['w1'] })
    await settle()
    expect([reads('all'), reads('work')]).toEqual([3, 2])
    costs.off()
    work.off()
    off()
  })

  it('coalesces a burst of events into one refetch, and one more for events that arrive while it runs', async () => {
    const off = wireBridge(fake.api)
    const gateway = observe(requestQuery('gateway.state', {}, 'Loading gateway state'))
    await settle()
    const reads = () => fake.callsOf('gateway.state').length
    expect(reads()).toBe(1)
    for (let i = 0; i < 5; i++) fake.emit('gateway.changed', { reason: 'evicted' })
    await settle()
    expect(reads()).toBe(2)

    let release!: () => void
    fake.handlers['gateway.state'] = () =>
      new Promise((r) => {
        release = () => r({ agents: [], cap: 8, idleTtlSeconds: 3600 })
      })
    fake.emit('gateway.changed', { reason: 'evicted' })
    await settle()
    expect(reads()).toBe(3) // running, held
    for (let i = 0; i < 5; i++) fake.emit('gateway.changed', { reason: 'evicted' })
    await settle()
    expect(reads()).toBe(3)
    release()
    await settle()
    expect(reads()).toBe(4) // the trailing pass covers the five that came meanwhile
    release()
    await settle()
    expect(reads()).toBe(4)
    gateway.off()
    off()
  })

  it('after a reconnect a list that never loaded (host down) reads its first page; a loaded one merges its head', async () => {
    const list = fake.handlers['sessions.list']!
    fake.handlers['sessions.list'] = () => {
      throw Object.assign(new Error('host is down'), { code: 'unavailable' })
    }
    const unwatch = watchSessions()
    await settle()
    expect(sessionRows().order).toEqual([])
    fake.handlers['sessions.list'] = list
    await resyncAfterReconnect()
    await settle()
    expect(sessionRows().order).toEqual(['default/s1'])
    expect(fake.callsOf('sessions.list').slice(1)).toEqual([expect.objectContaining({ limit: 100 })])

    await resyncAfterReconnect()
    await settle()
    expect(fake.callsOf('sessions.list').at(-1)).toMatchObject({ limit: 50 }) // the head, merged in
    unwatch()
  })
})
