import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SessionStore, SessionWatcher } from './index'
import { HAS_UPSTREAM, runWriter, upstreamRewind } from './test-fixtures/spawn-writer'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

type SessionsChanged = Parameters<ConstructorParameters<typeof SessionWatcher>[1]>[0]

afterAll(cleanupTempDirs)

let store: SessionStore
let watcher: SessionWatcher
let events: SessionsChanged[]

beforeEach(async () => {
  store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
  await store.createSession('target', 'cli')
  await store.createSession('bystander', 'cli')
  events = []
  watcher = new SessionWatcher(store, (e) => events.push(e)).start()
})
afterEach(() => {
  watcher.stop()
  store.close()
})

function waitFor(pred: () => boolean, timeoutMs = 15_000): Promise<void> {
  return new Promise((ok, fail) => {
    const started = Date.now()
    const poll = () =>
      pred() ? ok() : Date.now() - started > timeoutMs ? fail(new Error('timed out waiting')) : setTimeout(poll, 20)
    poll()
  })
}

describe('SessionWatcher', () => {
  it('a second process appending gives exactly one coalesced callback naming that session', async () => {
    await runWriter([store.path, 'target', 'append', '3'])
    await waitFor(() => events.length > 0)
    await watcher.flush()
    expect(events).toEqual([{ profile: 'default', sessionIds: ['target'] }])
    expect(store.getSession('target')!.messageCount).toBe(3)
  })

  it.runIf(HAS_UPSTREAM)(
    "upstream's own rewind_to_message in another process (rows set inactive, rewind_count + 1) is named",
    async () => {
      for (let i = 0; i < 2; i++) {
        await store.appendMessage('target', { role: 'user', content: `q${i}` })
        await store.appendMessage('target', { role: 'assistant', content: `a${i}` })
      }
      await waitFor(() => events.length > 0)
      await watcher.flush()
      events.length = 0
      const seen = watcher.stats.versionChanges
      // message_count stays 4: only the rewind counter and the rows' `active` flag change
      expect(await upstreamRewind(store.path, 'target')).toMatchObject({ rewound: 2 })
      await waitFor(() => watcher.stats.versionChanges > seen)
      await watcher.flush()
      expect(events).toEqual([{ profile: 'default', sessionIds: ['target'] }])
      expect(store.getSession('target')!.messageCount).toBe(4)
    },
    30_000
  )

  it('a write that changes nothing visible emits nothing', async () => {
    await runWriter([store.path, 'target', 'noop'])
    await waitFor(() => watcher.stats.versionChanges > 0) // the commit WAS seen…
    await watcher.flush()
    expect(events).toEqual([]) // …and judged invisible
    expect(watcher.stats.emits).toBe(0)
  })

  it('own-process writes are reported too (the watcher connection sees the writer connection commit)', async () => {
    await store.setPinned('bystander', true)
    await waitFor(() => events.length > 0)
    await watcher.flush()
    expect(events).toEqual([{ profile: 'default', sessionIds: ['bystander'] }])
  })

  it('a burst of own writes coalesces into few callbacks naming every touched session', async () => {
    for (let i = 0; i < 20; i++)
      await store.appendMessage(i % 2 ? 'target' : 'bystander', { role: 'user', content: `m${i}` })
    await watcher.flush()
    const named = new Set(events.flatMap((e) => e.sessionIds))
    expect(named).toEqual(new Set(['target', 'bystander']))
    expect(events.length).toBeLessThan(20)
  })

  it('stop() is final: no callbacks afterwards', async () => {
    watcher.stop()
    await store.appendMessage('target', { role: 'user', content: 'late' })
    watcher.check()
    expect(events).toEqual([])
  })
})
