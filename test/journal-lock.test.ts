// Issue 21 item 4: a rollback-journal home (upstream's fallback where WAL is unavailable; here chosen with
// `database.journal_mode: delete`) while a real second process holds BEGIN IMMEDIATE, then BEGIN EXCLUSIVE.
// Reads answer (retried off the event loop during the exclusive lock), a send is saved at release or refused
// with the lock message, never "Unknown session", and the home stays in its journal mode.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { LogRecord } from '@shared/contract/log'
import { createHost } from '../src-main/host'
import { SessionStore } from '../src-main/store'
import { createTurnHost } from '../src-main/host/compose'
import { TURN_CHANNELS } from '../src-main/gateway'
import { createLogger } from '../src-main/host/log/log'
import { withBusyRetry } from '../src-main/host/dispatch/busy-retry'
import { holdJournalLock, lockOnSignal, makeDeleteJournalHome } from './fixtures/journal-lock'
import { UPSTREAM_APPEND } from '../src-main/store/test-fixtures/spawn-writer'
import { execFileSync } from 'node:child_process'

const SID = '20260101_090000_aa01'
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const deleteJournalHome = () => {
  const home = mkdtempSync(join(tmpdir(), 'cad-journal-'))
  dirs.push(home)
  return makeDeleteJournalHome(home)
}

describe('a rollback-journal home locked by another program', () => {
  it('serves reads through BEGIN IMMEDIATE and BEGIN EXCLUSIVE; a send is saved or refused with the lock message', async () => {
    const home = deleteJournalHome()
    const records: LogRecord[] = []
    const log = createLogger()
    log.attach((r) => records.push(r))
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log })
    const call = (name: string, input: unknown) => host.dispatcher.invoke(name as never, input as never)
    const waits: Array<{ profile: string; request: string; state: string }> = []
    host.bus.subscribe((e) => void (e.event === 'store.lockChanged' && waits.push(e.payload as never)))
    try {
      expect((await call('sessions.list', { profile: 'default' })).ok).toBe(true) // opened before the lock
      const lock = holdJournalLock(join(home, 'state.db'), 1000, 1500)
      await lock.phase('immediate')
      const duringImmediate = await call('sessions.messages', { profile: 'default', sessionId: SID })
      expect(duringImmediate.ok).toBe(true)
      await lock.phase('exclusive')
      const started = Date.now()
      const answers = Promise.all([
        call('sessions.list', { profile: 'all' }),
        call('sessions.messages', { profile: 'default', sessionId: SID }),
        call('costs.summary', { profile: 'default', days: 3650 }),
        call('memory.health', { profile: 'default' }),
        call('sessions.resume', { profile: 'default', sessionId: SID, text: 'sent during the lock' })
      ])
      // the page is told while the lock is held, at the first refusal (the lock is released only further down)
      expect(waits[0]).toMatchObject({ profile: 'default', request: 'sessions.messages', state: 'waiting' })
      // a read still locked when its budget runs out gives up, and says so
      const gaveUp: string[] = []
      const reader = new Database(join(home, 'state.db'), { readonly: true, timeout: 0 })
      const short = await withBusyRetry(
        'sessions.messages',
        () => reader.prepare('SELECT count(*) FROM sessions').get(),
        50,
        (s) => gaveUp.push(s)
      ).catch((err: Error) => err)
      reader.close()
      await lock.phase('released')
      const [list, msgs, costs, health, send] = await answers
      expect(gaveUp).toEqual(['waiting', 'gave_up'])
      expect((short as Error).message).toContain('locked by another program')
      expect(list.ok && msgs.ok && costs.ok).toBe(true)
      // the list of every profile is served without the locked one, and says why in plain words
      expect((list as { output: { unavailable?: unknown[] } }).output.unavailable).toEqual([
        { profile: 'default', reason: expect.stringContaining('locked by another program') }
      ])
      expect(Date.now() - started).toBeGreaterThanOrEqual(500) // they really waited for the exclusive lock
      // The send waits the lock out too (its reads are retried), so the page may already hold it and the reply.
      const shown = (msgs as { output: { items: unknown[] } }).output.items.length
      expect(shown).toBeGreaterThanOrEqual(4)
      if (!send.ok) expect(shown).toBe(4)
      if (!send.ok) {
        expect(send.error).toMatchObject({
          code: 'unavailable',
          message: expect.stringContaining('locked by another program')
        })
      } else {
        const after = new Database(join(home, 'state.db'), { readonly: true })
        const n = after
          .prepare("SELECT count(*) AS n FROM messages WHERE session_id = ? AND content = 'sent during the lock'")
          .get(SID) as { n: number }
        after.close()
        expect(n.n).toBe(1)
      }
      // each read that waited said so, and that the lock went: none gave up
      const of = (request: string) => waits.filter((w) => w.request === request).map((w) => `${w.profile} ${w.state}`)
      expect(of('sessions.messages')).toEqual(['default waiting', 'default cleared'])
      // the Memory page's health waits for the lock too: it answered "no providers have reported yet" at once
      expect(health.ok).toBe(true)
      expect(of('memory.health')).toEqual(['default waiting', 'default cleared'])
      expect(waits.filter((w) => w.state === 'gave_up')).toEqual([])
      await new Promise((r) => setTimeout(r, 300))
    } finally {
      await host.close()
    }
    expect(records.filter((r) => /Unknown session|no such (column|table)/.test(r.message))).toEqual([])
    const check = new Database(join(home, 'state.db'), { readonly: true })
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete')
    check.close()
  }, 30_000)
})

describe('a profile another program holds locked while the host starts', () => {
  it('is watched once the lock is gone: the rail is told, and a session another process then writes is announced', async () => {
    const home = deleteJournalHome()
    const lock = holdJournalLock(join(home, 'state.db'), 0, 1200)
    await lock.phase('exclusive')
    const host = await createHost({ home, headless: true, live: true, validateOutput: true })
    const events: Array<{ event: string; payload: { sessionIds?: string[] } }> = []
    host.bus.subscribe((e) => events.push(e as never))
    const until = async (ok: () => boolean) => {
      for (const end = Date.now() + 8000; !ok(); await new Promise((r) => setTimeout(r, 50)))
        if (Date.now() > end) throw new Error(`waited 8 s for: ${ok}`)
    }
    try {
      await lock.phase('released')
      // it was left unwatched for the host's life: "cannot be read" in the rail, another process's writes unheard
      await until(() => events.some((e) => e.event === 'profiles.changed'))
      const seen = events.length
      // another process appends to a session (plain node: a tsx writer cost a second of CPU)
      execFileSync(process.execPath, [UPSTREAM_APPEND, join(home, 'state.db'), SID, 'written after the lock'])
      await until(() =>
        events.slice(seen).some((e) => e.event === 'sessions.changed' && !!e.payload.sessionIds?.includes(SID))
      )
    } finally {
      await host.close()
    }
  }, 20_000)
})

describe('a rename while another program holds the write lock', () => {
  it('is refused as locked (nothing saved), not as something wrong with the title; after the lock it is saved', async () => {
    const home = deleteJournalHome()
    appendFileSync(join(home, 'config.yaml'), 'caduceus:\n  write_retry_seconds: 0.2\n')
    const host = await createHost({ home, headless: true, live: false, validateOutput: true })
    const call = (name: string, input: unknown) => host.dispatcher.invoke(name as never, input as never)
    try {
      const lock = holdJournalLock(join(home, 'state.db'), 600, 0)
      await lock.phase('immediate')
      const refused = await call('sessions.update', { profile: 'default', sessionId: SID, title: 'Boiler notes' })
      // it read "invalid input" on the title field: the rename form blamed the words the user typed
      expect(refused.ok).toBe(false)
      expect((refused as { error: { code: string; field?: string; message: string } }).error).toMatchObject({
        code: 'unavailable',
        message: expect.stringContaining('locked by another program')
      })
      expect((refused as { error: { field?: string } }).error.field).toBeUndefined()
      await lock.phase('released')
      expect(
        await call('sessions.update', { profile: 'default', sessionId: SID, title: 'Boiler notes' })
      ).toMatchObject({
        ok: true,
        output: { title: 'Boiler notes' }
      })
    } finally {
      await host.close()
    }
  }, 20_000)
})

describe('a one-shot turn on a rollback-journal home another program holds', () => {
  it('waits for the exclusive lock (open and first read retried off the loop), then completes', async () => {
    const home = deleteJournalHome()
    const host = await createTurnHost({ home })
    try {
      const lock = holdJournalLock(join(home, 'state.db'), 0, 800)
      await lock.phase('exclusive') // the store is not open yet: the turn opens it under the lock
      let settled = false
      const turn = host.gateway.runChannelTurn({ profile: 'default', channel: TURN_CHANNELS.oneShot, text: 'hi' })
      void turn.finally(() => (settled = true)).catch(() => undefined)
      await new Promise((r) => setTimeout(r, 200))
      expect(settled).toBe(false)
      await lock.phase('released')
      const done = await turn
      expect([done.status, done.error]).toEqual(['completed', undefined])
      expect(done.reply).toContain('hi')
    } finally {
      await host.close()
    }
  }, 30_000)
})

// Another program commits while the turn runs (rollback journal: its EXCLUSIVE lock blocks readers for a moment).
// The lock is taken right after one of the turn's own writes, from the store's synchronous change listener, so the
// reads that follow that write (the gateway's guard baseline after creating the session; the agent's session row and
// history after the user message is saved) meet it: each waits it out off the event loop and the turn completes.
describe("a turn whose reads meet another program's commit", () => {
  for (const [after, reads] of [
    [1, 'the guard baseline after the session row is created'],
    [2, "the agent's session row and history after the user message is saved"]
  ] as const) {
    it(`completes when the home is locked for 300 ms after its write ${after} (${reads})`, async () => {
      const home = deleteJournalHome()
      const host = await createTurnHost({ home })
      const lock = lockOnSignal(join(home, 'state.db'), 300)
      try {
        lock.ready()
        const store = host.stores.get('default')!
        let writes = 0
        let lockedAt = 0
        store.onLocalChange(() => {
          if (++writes !== after) return
          lock.lockNow()
          lockedAt = Date.now()
        })
        const done = await host.gateway.runChannelTurn({
          profile: 'default',
          channel: TURN_CHANNELS.oneShot,
          text: 'hi'
        })
        expect([done.status, done.error]).toEqual(['completed', undefined])
        expect(done.reply).toContain('hi')
        expect(lockedAt).toBeGreaterThan(0)
        expect(Date.now() - lockedAt).toBeGreaterThanOrEqual(250) // it really waited for the lock
      } finally {
        await lock.released()
        await host.close()
      }
    }, 10_000)
  }
})

describe('the guard baseline after a turn, while another program commits', () => {
  it('is still taken: the next turn on the conversation reuses the agent instead of seeing a foreign write', async () => {
    const home = deleteJournalHome()
    const host = await createTurnHost({ home })
    const lock = lockOnSignal(join(home, 'state.db'), 300)
    try {
      lock.ready()
      let writes = 0
      // Write 4 is the turn's last (session row, user message, usage, reply): the baseline read comes right after.
      host.stores.get('default').onLocalChange(() => {
        if (++writes === 4) lock.lockNow()
      })
      const turn = (sessionId?: string) =>
        host.gateway.runChannelTurn({ profile: 'default', channel: TURN_CHANNELS.oneShot, text: 'hi', sessionId })
      const first = await turn()
      expect(first.status).toBe('completed')
      expect(writes).toBe(4)
      const second = await turn(first.sessionId)
      expect(second.status).toBe('completed')
      expect(host.gateway.state().agents.map((a) => a.turns)).toEqual([2])
    } finally {
      await lock.released()
      await host.close()
    }
  }, 10_000)
})

describe('a follow-up notice delivered while another program holds the home', () => {
  it('waits for the exclusive lock, then its turn answers the saved notice', async () => {
    const home = deleteJournalHome()
    const host = await createTurnHost({ home })
    try {
      const store = host.stores.get('default')
      const lock = holdJournalLock(join(home, 'state.db'), 0, 300)
      await lock.phase('exclusive')
      const handle = await host.gateway.deliverSaved({
        profile: 'default',
        sessionId: SID,
        save: async (tip) => ({
          messageId: await store.appendMessage(tip, { role: 'user', content: 'notice' }),
          text: 'notice'
        })
      })
      await lock.phase('released')
      expect((await host.gateway.finished(handle!.turnId))?.status).toBe('completed')
    } finally {
      await host.close()
    }
  }, 10_000)
})

describe("a new profile's first state.db while another program holds the home's", () => {
  it("waits for the lock, then takes that state.db's schema (never the current one for want of reading it)", async () => {
    const home = deleteJournalHome()
    const file = join(home, 'profiles', 'fresh', 'state.db')
    mkdirSync(join(home, 'profiles', 'fresh'), { recursive: true })
    const store = new SessionStore(file, { profile: 'fresh', lazyCreate: true })
    const lock = holdJournalLock(join(home, 'state.db'), 0, 600)
    try {
      await lock.phase('exclusive')
      const started = Date.now()
      await store.createSession('c1', 'cli')
      expect(Date.now() - started).toBeGreaterThanOrEqual(300) // it waited for the template's lock
    } finally {
      await lock.phase('released')
      store.close()
    }
    const db = new Database(file, { readonly: true })
    try {
      const key = db.prepare("SELECT name FROM pragma_table_info('session_model_usage') WHERE pk > 0").pluck().all()
      expect(key).not.toContain('task') // the v21 home's five-column key, as its upstream writes it
      expect(db.prepare('SELECT MAX(version) FROM schema_version').pluck().get()).toBe(21)
    } finally {
      db.close()
    }
  }, 15_000)
})

describe('a queued message whose turn comes as another program commits', () => {
  it('runs: the lookup in the tick it wakes answers from what it saw, never drops the message', async () => {
    const home = deleteJournalHome()
    appendFileSync(join(home, 'config.yaml'), 'display:\n  busy_input_mode: queue\n')
    const host = await createHost({ home, headless: true, live: false, log: createLogger() })
    const lock = lockOnSignal(join(home, 'state.db'), 300)
    try {
      lock.ready()
      const first = await host.gateway.resume({ profile: 'default', sessionId: SID, text: 'first' })
      const queued = await host.gateway.resume({ profile: 'default', sessionId: SID, text: 'second', whileBusy: true })
      expect(queued.busy).toBe('queued')
      // The first turn's end wakes the queued one; its continuation runs after this synchronous listener, which
      // takes the lock first: the queued message's lookup of the conversation meets the foreign commit.
      let locked = false
      host.bus.subscribe(({ event, payload }) => {
        if (event === 'turn.finished' && (payload as { turnId: string }).turnId === first.turnId && !locked) {
          locked = true
          lock.lockNow()
        }
      })
      const done = await new Promise<{ status: string }>((resolve) =>
        host.bus.subscribe(({ event, payload }) => {
          if (event === 'turn.finished' && (payload as { turnId: string }).turnId === queued.turnId)
            resolve(payload as { status: string })
        })
      )
      expect(locked).toBe(true)
      expect(done.status).toBe('completed')
    } finally {
      await lock.released()
      await host.close()
    }
  }, 15_000)
})
