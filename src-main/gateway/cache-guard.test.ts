/**
 * The cross-process guard against a REAL state.db (seed 001 TestAgentCacheMessageCountRebaseline and
 * TestCrossProcessInvalidationDefersCleanup). "Another process" is a second SessionStore connection on
 * the same file here; turn-runner.integration.test.ts uses a real second process.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from '../store'
import { AgentCache, type SessionProbe } from './agent-cache'
import { AGENT_PENDING } from './cacheable'
import { TestAgent } from './test-fixtures/test-agent'
import { rawDb } from '../store/test-fixtures/raw-db'

const opened: SessionStore[] = []
afterEach(() => {
  for (const s of opened.splice(0)) s.close()
})

async function dbPair() {
  const dir = mkdtempSync(join(tmpdir(), 'cad-guard-'))
  const path = join(dir, 'state.db')
  const ours = new SessionStore(path, { profile: 'default' })
  const theirs = new SessionStore(path, { profile: 'default' })
  opened.push(ours, theirs)
  await ours.createSession('s1', 'telegram')
  return { ours, theirs }
}

const probeOf = (store: SessionStore): SessionProbe => ({
  messageCount: (_k, sid) => store.getSession(sid)?.messageCount ?? null,
  rewindCount: (_k, sid) => (store.sessionCounters(sid)?.rewindCount as number | null | undefined) ?? null,
  isSessionEnded: (_k, sid) => store.getSession(sid)?.endedAt != null
})

/** Mirrors the production reuse decision through the cache's own lookup. */
const wouldReuse = (cache: AgentCache<TestAgent>, key: string, sid: string) => {
  const entry = cache.get(key)
  const r = cache.lookup(key, { signature: entry!.signature, sessionId: sid })
  if (r.agent === null && entry)
    cache.insert(key, entry.agent as TestAgent, entry.signature, {
      messageCount: entry.snapshot?.messageCount,
      sessionId: entry.snapshot?.sessionId
    })
  return r.decision === 'reused'
}

describe('rewind_count (another program rewinds: rows inactive, message_count kept)', () => {
  const rewindElsewhere = (theirs: SessionStore) =>
    rawDb(theirs)
      .transaction(() => {
        rawDb(theirs).prepare("UPDATE messages SET active = 0 WHERE session_id = 's1' AND role = 'assistant'").run()
        rawDb(theirs).prepare("UPDATE sessions SET rewind_count = rewind_count + 1 WHERE id = 's1'").run()
      })
      .immediate()

  it('invalidates even after our own re-baseline; our own turns after the rebuild reuse again', async () => {
    const { ours, theirs } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    const snap = () => ({ messageCount: ours.getSession('s1')!.messageCount, rewindCount: 0, sessionId: 's1' })
    cache.insert('k', new TestAgent(), 'sig', snap())
    await ours.appendMessages('s1', [
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a' }
    ])
    rewindElsewhere(theirs) // lands during our turn: the re-baseline after it must not hide it
    cache.refreshMessageCount('k', 's1')
    expect(cache.get('k')!.snapshot.rewinds).toBe(0)
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's1' })).toEqual({
      decision: 'external_write',
      agent: null
    })
    cache.insert('k', new TestAgent(), 'sig', { ...snap(), rewindCount: 1 })
    await ours.appendMessage('s1', { role: 'user', content: 'u2' })
    cache.refreshMessageCount('k', 's1')
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's1' }).decision).toBe('reused')
  })

  it('a snapshot without a rewind count learns it at the re-baseline, never invalidating by it before', async () => {
    const { ours, theirs } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    cache.insert('k', new TestAgent(), 'sig', { messageCount: 0, sessionId: 's1' })
    rewindElsewhere(theirs)
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's1' }).decision).toBe('reused')
    cache.refreshMessageCount('k', 's1')
    expect(cache.get('k')!.snapshot.rewinds).toBe(1)
    rewindElsewhere(theirs)
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's1' }).decision).toBe('external_write')
  })
})

describe('message_count re-baseline', () => {
  // seed 001: test_cross_process_write_still_invalidates
  it('after a re-baseline, a foreign append still invalidates', async () => {
    const { ours, theirs } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    cache.insert('telegram:s1', new TestAgent(), 'sig', {
      messageCount: ours.getSession('s1')!.messageCount,
      sessionId: 's1'
    })
    await ours.appendMessage('s1', { role: 'user', content: 'u' })
    await ours.appendMessage('s1', { role: 'assistant', content: 'a' })
    cache.refreshMessageCount('telegram:s1', 's1')
    expect(cache.lookup('telegram:s1', { signature: 'sig', sessionId: 's1' }).decision).toBe('reused')
    await theirs.appendMessage('s1', { role: 'user', content: 'external from dashboard' })
    expect(cache.lookup('telegram:s1', { signature: 'sig', sessionId: 's1' })).toEqual({
      decision: 'external_write',
      agent: null
    })
    expect(cache.has('telegram:s1')).toBe(false)
  })

  // seed 001: test_in_band_followup_reuses_cached_agent
  it('an in-band follow-up reuses the agent once re-baselined', async () => {
    const { ours } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    const agent = new TestAgent()
    cache.insert('telegram:s1', agent, 'sig', { messageCount: ours.getSession('s1')!.messageCount, sessionId: 's1' })
    await ours.appendMessage('s1', { role: 'user', content: 'u' })
    await ours.appendMessage('s1', { role: 'assistant', content: 'a' })
    // Without the re-baseline our own rows look foreign.
    expect(wouldReuse(cache, 'telegram:s1', 's1')).toBe(false)
    cache.refreshMessageCount('telegram:s1', 's1')
    expect(wouldReuse(cache, 'telegram:s1', 's1')).toBe(true)
    expect(cache.get('telegram:s1')?.agent).toBe(agent)
  })

  it('five consecutive own turns all reuse the same agent', async () => {
    const { ours } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    const agent = new TestAgent()
    cache.insert('k', agent, 'sig', { messageCount: 0, sessionId: 's1' })
    for (let i = 0; i < 5; i++) {
      const r = cache.lookup('k', { signature: 'sig', sessionId: 's1' })
      expect(r).toEqual({ decision: 'reused', agent })
      await ours.appendMessage('s1', { role: 'user', content: `u${i}` })
      await ours.appendMessage('s1', { role: 'assistant', content: `a${i}` })
      cache.refreshMessageCount('k', 's1')
    }
    expect(cache.get('k')?.snapshot?.messageCount).toBe(10)
  })

  it('no DB, falsy session id, placeholder, other session and a raising DB are all no-ops', async () => {
    const { ours } = await dbPair()
    await ours.appendMessage('s1', { role: 'user', content: 'u' })
    const noDb = new AgentCache<TestAgent>()
    noDb.insert('k', new TestAgent(), 'sig', { messageCount: 0, sessionId: 's1' })
    noDb.refreshMessageCount('k', 's1')
    expect(noDb.get('k')?.snapshot?.messageCount).toBe(0)

    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    cache.insert('k', new TestAgent(), 'sig', { messageCount: 0, sessionId: 's1' })
    cache.refreshMessageCount('k', '')
    expect(cache.get('k')?.snapshot?.messageCount).toBe(0)
    cache.insert('pending', AGENT_PENDING, 'sig', { messageCount: 0, sessionId: 's1' })
    cache.refreshMessageCount('pending', 's1')
    expect(cache.get('pending')?.snapshot?.messageCount).toBe(0)
    cache.insert('other', new TestAgent(), 'sig', { messageCount: 0, sessionId: 's0' })
    cache.refreshMessageCount('other', 's1')
    expect(cache.get('other')?.snapshot?.messageCount).toBe(0)
    // A 3-tuple-style snapshot (count, no session id) is re-baselined.
    cache.insert('three', new TestAgent(), 'sig', { messageCount: 0 })
    cache.refreshMessageCount('three', 's1')
    expect(cache.get('three')?.snapshot?.messageCount).toBe(1)

    const raising = new AgentCache<TestAgent>({
      probe: {
        messageCount: () => {
          throw new Error('db gone')
        },
        isSessionEnded: () => {
          throw new Error('db gone')
        }
      }
    })
    raising.insert('k', new TestAgent(), 'sig', { messageCount: 0, sessionId: 's1' })
    raising.refreshMessageCount('k', 's1')
    expect(raising.get('k')?.snapshot?.messageCount).toBe(0)
    // And the guard treats an unreadable count as "unknown": reuse, never a crash.
    expect(raising.lookup('k', { signature: 'sig', sessionId: 's1' }).decision).toBe('reused')
  })

  // Upstream's legacy 2-tuple (no count next to the agent): either side unknown means reuse.
  it('an entry inserted without a message count is never invalidated by count', async () => {
    const { ours } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    cache.insert('k', new TestAgent(), 'sig')
    await ours.appendMessage('s1', { role: 'user', content: 'u' })
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's1' }).decision).toBe('reused')
  })

  it('self-heals when the snapshot session has ended; keeps the agent when it is still live', async () => {
    const { ours } = await dbPair()
    await ours.createSession('s2', 'telegram')
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    cache.insert('k', new TestAgent(), 'sig', { messageCount: 0, sessionId: 's1' })
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's2' }).decision).toBe('reused')
    await ours.endSession('s1', 'user_exit')
    expect(cache.lookup('k', { signature: 'sig', sessionId: 's2' })).toEqual({
      decision: 'session_changed',
      agent: null
    })
    expect(cache.has('k')).toBe(false)
  })
})

describe('cross-process invalidation defers cleanup', () => {
  // seed 001: test_cleanup_runs_with_lock_released
  it("the cache stays usable while the evicted agent's release is still pending; never a hard close", async () => {
    const { ours, theirs } = await dbPair()
    const cache = new AgentCache<TestAgent>({ probe: probeOf(ours) })
    let started!: () => void
    const releaseStarted = new Promise<void>((r) => (started = r))
    let unblock!: () => void
    const blocked = new Promise<void>((r) => (unblock = r))
    const old = new TestAgent()
    old.releaseClients = () => {
      old.calls.push('releaseClients')
      started()
      return blocked // slow provider/socket teardown
    }
    cache.insert('telegram:s1', old, 'sig', { messageCount: 0, sessionId: 's1' })
    await theirs.appendMessage('s1', { role: 'user', content: 'from another process' })
    expect(cache.lookup('telegram:s1', { signature: 'sig', sessionId: 's1' }).decision).toBe('external_write')
    await releaseStarted
    // Mid-release: lookups and inserts go through.
    expect(cache.pendingReleases).toBe(1)
    const fresh = new TestAgent()
    cache.insert('telegram:s1', fresh, 'sig', { messageCount: 1, sessionId: 's1' })
    expect(cache.lookup('telegram:s1', { signature: 'sig', sessionId: 's1' })).toEqual({
      decision: 'reused',
      agent: fresh
    })
    expect(cache.sweepIdle()).toBe(0)
    unblock()
    await cache.drain()
    expect(cache.pendingReleases).toBe(0)
    expect(old.calls).toEqual(['releaseClients'])
    expect(old.taskState).toBe('alive')
  })
})
