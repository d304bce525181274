// Memory activity log: real SessionStores on state.db files in temp dirs, through the repository production uses.
import { mkdtempSync } from 'node:fs'
import { spawn } from 'node:child_process'
import Database from 'better-sqlite3'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MemoryEvent, ProviderHealth } from '@shared/contract/memory'
import { withHomeOverride } from '../scope'
// Direct file import (tests may): the store's index is still being written by its owner.
import { SessionStore } from '../store/session-store'
import { MemoryActivityLog } from './activity'
import { MemoryActivityHub } from './activity-hub'
import { captureLogs, makeHomes } from './test-fixtures/harness'
import { RecordingProvider } from './test-fixtures/recording-provider'
import { MemoryManager } from './manager'
import { rawDb } from '../store/test-fixtures/raw-db'

/** A profile's state.db; the raw handle is only for arranging and inspecting rows. */
function openStore(): { store: SessionStore; db: ReturnType<typeof rawDb> } {
  const store = new SessionStore(join(mkdtempSync(join(tmpdir(), 'cad-memact-')), 'state.db'), { profile: 'alpha' })
  return { store, db: rawDb(store) }
}
let logs: ReturnType<typeof captureLogs>
beforeEach(() => (logs = captureLogs()))
afterEach(() => logs.stop())

const base = { provider: 'ext', kind: 'tool_call' as const, name: 'recall', ok: true, summary: 'ok' }

describe('memory activity log', () => {
  it('stores every manager event (tool calls, recalls with size, syncs, refusals) in cad_memory_events and pushes contract MemoryEvents', async () => {
    const { alpha, beta } = makeHomes()
    const { store, db } = openStore()
    const log = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha')
    const pushed: MemoryEvent[] = []
    log.onEvent((e) => pushed.push(e))
    const p = new RecordingProvider('ext', ['ext_recall'])
    p.prefetchResult = 'the user prefers tea'
    const m = new MemoryManager({ activity: log, log: logs.sink })
    m.addProvider(p)
    await m.initializeAll('sess-1', { hermesHome: alpha, platform: 'desk' })
    await withHomeOverride(alpha, async () => {
      await m.handleToolCall('ext_recall', { q: 'tea' }, { turnId: 'turn-1' })
      expect(await m.prefetchAll('drinks?')).toBe('the user prefers tea')
      m.syncAll('hi', 'hello')
      await m.flushPending()
    })
    await withHomeOverride(beta, () => m.handleToolCall('ext_recall', {}))
    log.flush()
    const rows = db
      .prepare('SELECT kind, name, ok, size, session_id FROM cad_memory_events ORDER BY id')
      .all() as Array<Record<string, unknown>>
    expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual([
      'provider:initialize',
      'tool_call:ext_recall',
      'prefetch:prefetch',
      'sync:sync_turn',
      'refusal:ext_recall'
    ])
    expect(rows[2]).toMatchObject({ size: 'the user prefers tea'.length, session_id: 'sess-1' })
    expect(rows[4]).toMatchObject({ ok: 0 })
    expect(pushed).toHaveLength(5)
    for (const e of pushed) expect(MemoryEvent.parse(e)).toEqual(e)
    expect(pushed[2]!.summary).toBe('query "drinks?" → recalled: the user prefers tea')
    expect(pushed[1]).toMatchObject({ profile: 'alpha', turnId: 'turn-1', kind: 'tool_call' })
    expect(log.listEvents({ refusalsOnly: true }).map((e) => e.name)).toEqual(['ext_recall'])
  })

  it('queries: newest first, filters by kind / provider / session, pages by beforeId, ignores other profiles', () => {
    const log = new MemoryActivityLog(openStore().store.memoryEventsRepo(), 'alpha')
    for (let i = 0; i < 10; i++)
      log.record({
        ...base,
        provider: i % 2 ? 'odd' : 'even',
        kind: i < 5 ? 'tool_call' : 'hook',
        sessionId: `s${i % 3}`
      })
    const all = log.listEvents()
    expect(all.map((e) => e.id)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
    expect(log.listEvents({ kinds: ['hook'] }).map((e) => e.id)).toEqual([10, 9, 8, 7, 6])
    expect(log.listEvents({ provider: 'odd', limit: 2 }).map((e) => e.id)).toEqual([10, 8])
    expect(log.listEvents({ sessionId: 's0' }).map((e) => e.id)).toEqual([10, 7, 4, 1])
    expect(log.listEvents({ beforeId: 4 }).map((e) => e.id)).toEqual([3, 2, 1])
    expect(log.listEvents({ profile: 'beta' })).toEqual([])
    expect(() => log.listEvents({ limit: 0 })).toThrow()
  })

  it('keeps only the newest events (bounded retention)', () => {
    const { store, db } = openStore()
    const log = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha', { retention: 50, pruneEvery: 10 })
    for (let i = 0; i < 125; i++) {
      log.record({ ...base, summary: `event ${i}` })
      if (i % 5 === 4) log.flush() // one batch per event-loop turn in real use
    }
    const count = () => (db.prepare('SELECT COUNT(*) AS n FROM cad_memory_events').get() as { n: number }).n
    expect(count()).toBeLessThanOrEqual(50 + 9)
    const oldest = db.prepare('SELECT MIN(id) AS id FROM cad_memory_events').get() as { id: number }
    expect(oldest.id).toBeGreaterThan(125 - 60)
    // Re-opening changes nothing (reading a home writes nothing); the next insert prunes, in its own write.
    const before = count()
    const again = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha', { retention: 50, pruneEvery: 1 })
    expect(count()).toBe(before)
    again.record({ ...base, summary: 'event 125' })
    again.flush()
    expect(count()).toBe(50)
    expect(log.listEvents({ limit: 1 })[0]!.summary).toBe('event 125')
  })

  it('counts a batch toward the next prune once, when the store re-ran its write for a busy COMMIT', async () => {
    // a rollback-journal home whose COMMIT meets another connection's read lock: the store retries the whole write
    const path = join(mkdtempSync(join(tmpdir(), 'cad-memact-')), 'state.db')
    const store = new SessionStore(path, { profile: 'alpha', journalMode: () => 'delete' })
    await store.createSession('seed', 'cli')
    const reader = new Database(path)
    reader.prepare('BEGIN').run()
    reader.prepare('SELECT count(*) FROM sessions').get()
    let attempts = 0
    const log = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha', {
      retention: 1,
      pruneEvery: 3,
      // the reader lets go during the second attempt: exactly one retry, and that attempt commits
      writer: (fn) =>
        store.write((tx) => {
          if (++attempts === 2) reader.prepare('COMMIT').run()
          return fn(tx)
        })
    })
    const delivered = new Promise<void>((r) => log.onEvent((e) => e.summary === 'second' && r()))
    log.record({ ...base, summary: 'first' })
    log.record({ ...base, summary: 'second' })
    log.flush()
    await delivered
    reader.close()
    expect(attempts).toBe(2)
    // two events, fewer than pruneEvery: nothing pruned, however often the write was tried
    expect(log.listEvents().map((e) => e.summary)).toEqual(['second', 'first'])
    log.record({ ...base, summary: 'third' })
    log.flush()
    await new Promise((r) => setImmediate(r))
    expect(log.listEvents().map((e) => e.summary)).toEqual(['third']) // the third is the prune's turn
    store.close()
  })

  it("a read that meets another program's lock is not answered with an empty log (the request waits for it)", async () => {
    // a rollback-journal home: another program's exclusive lock blocks readers there
    const path = join(mkdtempSync(join(tmpdir(), 'cad-memact-')), 'state.db')
    const store = new SessionStore(path, { profile: 'alpha', journalMode: () => 'delete' })
    const log = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha')
    log.record({ ...base })
    log.flush()
    expect(log.health().map((h) => h.provider)).toEqual(['ext'])
    // the system sqlite3 (upstream's SQLite) holds BEGIN EXCLUSIVE until told to commit
    const other = spawn('sqlite3', [path], { stdio: ['pipe', 'pipe', 'inherit'] })
    const locked = new Promise<void>((ok) => other.stdout.on('data', (d: Buffer) => d.includes('locked') && ok()))
    other.stdin.write("BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
    await locked
    try {
      // it answered "no providers have reported yet" and an empty feed, taken for the truth
      expect(() => log.health()).toThrow(/locked/)
      expect(() => log.listEvents({ profile: 'alpha' })).toThrow(/locked/)
    } finally {
      other.stdin.end('COMMIT;\n')
      await new Promise((r) => other.on('exit', r))
    }
    expect(log.listEvents({ profile: 'alpha' })).toHaveLength(1)
    store.close()
  })

  it('health: calls, errors, refusals, last error and p95 latency per provider', () => {
    const log = new MemoryActivityLog(openStore().store.memoryEventsRepo(), 'alpha')
    for (let i = 1; i <= 100; i++) log.record({ ...base, latencyMs: i })
    log.record({ ...base, kind: 'error', name: 'prefetch', ok: false, summary: 'timed out after 8000 ms' })
    log.record({ ...base, kind: 'refusal', ok: false, summary: 'refused (foreign_scope)' })
    // a memory tool call and the write it made: one call (the write is counted as a write)
    log.record({ ...base, provider: 'builtin', kind: 'tool_call', name: 'memory' })
    log.record({ ...base, provider: 'builtin', kind: 'write', name: 'add:memory' })
    const health = log.health()
    for (const h of health) expect(ProviderHealth.parse(h)).toEqual(h)
    expect(health.find((h) => h.provider === 'ext')).toMatchObject({
      profile: 'alpha',
      calls: 100,
      errors: 1,
      refusals: 1,
      lastError: 'timed out after 8000 ms',
      p95LatencyMs: 95
    })
    expect(health.find((h) => h.provider === 'builtin')).toMatchObject({
      calls: 1,
      writes: 1,
      errors: 0,
      refusals: 0,
      lastError: null,
      p95LatencyMs: null
    })
  })

  it("health's last recall is the recall a turn used (never the warm-up): query, size, duration, ok or failed with why; sync and write counts; failures first", async () => {
    const { alpha } = makeHomes()
    const { store } = openStore()
    const log = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha')
    const good = new RecordingProvider('good', [])
    good.prefetchResult = 'tea, always'
    const bad = new RecordingProvider('zbad', [])
    // One external provider per manager (upstream's rule): two profiles' worth of managers on one log.
    const managers = [good, bad].map((p) => {
      const m = new MemoryManager({ activity: log, log: logs.sink })
      m.addProvider(p)
      return m
    })
    for (const m of managers) await m.initializeAll('sess-1', { hermesHome: alpha, platform: 'desk' })
    await withHomeOverride(alpha, async () => {
      for (const m of managers) await m.prefetchAll('what do I drink?', { turnId: 't1' })
      bad.fail.add('prefetch')
      bad.fail.add('sync_turn')
      for (const m of managers) {
        await m.prefetchAll('and with dinner?', { turnId: 't2' })
        m.syncAll('and with dinner?', 'wine', { turnId: 't2' })
        m.queuePrefetchAll('and with dinner?') // the end-of-turn warm-up: not a recall
        await m.flushPending()
      }
    })
    const health = log.health()
    for (const h of health) expect(ProviderHealth.parse(h)).toEqual(h)
    expect(health.map((h) => h.provider)).toEqual(['zbad', 'good'])
    expect(health[0]!.lastPrefetch).toMatchObject({
      ok: false,
      size: null,
      query: 'and with dinner?',
      detail: expect.stringMatching(/^failed: prefetch exploded/)
    })
    expect(health[0]!.lastPrefetch!.detail).not.toContain('sk-abcdefghijklmnop1234')
    expect(health[0]).toMatchObject({ syncs: 0, syncFailures: 1, writes: 0 })
    expect(health[1]!.lastPrefetch).toMatchObject({ ok: true, size: 'tea, always'.length, query: 'and with dinner?' })
    expect(health[1]!.lastPrefetch!.latencyMs).toEqual(expect.any(Number))
    expect(health[1]).toMatchObject({ syncs: 1, syncFailures: 0 })
    expect(log.listEvents({ kinds: ['sync'] }).map((e) => e.turnId)).toEqual(['t2'])
  })

  it('never stores secrets, and never throws when the DB is gone or an old table lacks columns', () => {
    const { store, db } = openStore()
    db.exec('CREATE TABLE cad_memory_events (id INTEGER PRIMARY KEY AUTOINCREMENT, provider TEXT, kind TEXT)')
    db.exec("INSERT INTO cad_memory_events (provider, kind) VALUES ('old', 'martian')")
    const log = new MemoryActivityLog(store.memoryEventsRepo(), 'alpha')
    expect(log.listEvents()[0]).toMatchObject({ provider: 'old', kind: 'hook', summary: '', ok: true })
    log.record({ ...base, summary: 'used key sk-abcdefghijklmnopqrstuvwxyz and Bearer abcdefghijklmnop' })
    expect(log.listEvents({ limit: 1 })[0]!.summary).not.toMatch(/sk-abcdefgh|Bearer abcdefgh/)
    store.close()
    const pushed: MemoryEvent[] = []
    log.onEvent((e) => pushed.push(e))
    expect(() => (log.record(base), log.flush())).not.toThrow()
    expect(pushed[0]!.id).toBeLessThan(0) // still shown live, marked as not persisted
    expect(log.listEvents()).toEqual([])
    expect(log.health()).toEqual([])
  })

  it("lives in a profile's real state.db next to the upstream tables; the hub merges profiles", async () => {
    const { alpha, beta } = makeHomes()
    const stores = [
      new SessionStore(join(alpha, 'state.db'), { profile: 'alpha' }),
      new SessionStore(join(beta, 'state.db'), { profile: 'beta' })
    ]
    const hub = new MemoryActivityHub()
    const seen: MemoryEvent[] = []
    hub.onEvent((e) => seen.push(e))
    const a = hub.register('alpha', stores[0]!)
    const b = hub.register('beta', stores[1]!)
    expect(hub.register('alpha', stores[0]!)).toBe(a)
    a.record({ ...base, summary: 'a1' })
    a.flush()
    b.record({ ...base, summary: 'b1', kind: 'refusal', ok: false })
    b.flush()
    a.record({ ...base, summary: 'a2' })
    a.flush()
    // The hub writes through each store's write queue: listeners hear an event once its write has committed.
    await new Promise((r) => setImmediate(r))
    expect(seen.map((e) => `${e.profile}:${e.summary}`)).toEqual(['alpha:a1', 'beta:b1', 'alpha:a2'])
    expect(hub.listEvents().map((e) => e.summary)).toEqual(['a2', 'b1', 'a1'])
    expect(hub.listEvents({ profile: 'beta' }).map((e) => e.summary)).toEqual(['b1'])
    expect(hub.health('all').map((h) => `${h.profile}:${h.refusals}`)).toEqual(['alpha:0', 'beta:1'])
    expect(rawDb(stores[1]!).prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sessions'").get()).toEqual({
      n: 1
    })
    hub.unregister('beta')
    expect(hub.listEvents().map((e) => e.profile)).toEqual(['alpha', 'alpha'])
    for (const s of stores) s.close()
  })
})
