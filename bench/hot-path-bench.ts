/**
 * CPU time the host's thread (Electron's main thread in the app: every millisecond is UI jank) spends on work that
 * scales with a home or repeats on every turn:
 * - the watcher's check after one commit another connection made: the visible-columns diff (watcher-prints.ts: the
 *   rows the WAL's new frames hold, else every session) and the list index's catch-up, for a title change (no new
 *   message: only the diff can see it) and for a message another process appended;
 * - a message write and a 50-message conversation read (what each turn of an agent does), with no watcher running:
 *   the store's own commit wakes one, whose check (the first numbers) would be counted in;
 * - on a given home Caduceus never indexed (an untouched upstream home): a message write while the short-text index
 *   catches up, and what the catch-up, in slices between writes, costs the thread (`catchingUp`).
 * Measured with process.cpuUsage() around each call, the kinds interleaved, so a shared machine's load lands on all
 * of them alike. `npx tsx bench/hot-path-bench.ts [--home DIR] [--profile P]` measures a copy of a home (the given
 * one is never written), else a generated 10,000-session home; `npm run bench` prints it with the store's numbers.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import { SessionWatcher, StoreRegistry, type SessionStore } from '../src-main/store'
import { generateBulk } from '../src-main/store/demo'
import { shortIndexState, shortIndexStep } from '../src-main/store/short-index'
import { detectShape } from '../src-main/store/shape'
import { txDb } from '../src-main/store/write-tx'
import { percentiles } from './percentiles'
import { stateDbOf } from './list-after-write'

interface Percentiles {
  p50: number
  p95: number
}
export interface HotPathResult {
  /** The watcher's check() after another connection changed one session's title (ms of CPU). */
  watcherCheckTitleCpuMs: Percentiles
  /** The same after another connection appended a message (the row and the session's counters, as upstream does). */
  watcherCheckAppendCpuMs: Percentiles
  /**
   * Of those checks, how many compared only the rows the WAL's new frames hold (the others compared every session:
   * a WAL restarted after a checkpoint, a page the frames cannot attribute).
   */
  watcherRowDiffs: { rows: number; of: number }
  /**
   * store.appendMessage on a session of this home (µs of CPU; the write queue's own work included), once Caduceus's
   * short-text index is current.
   */
  messageWriteCpuUs: Percentiles
  /**
   * A home Caduceus never indexed (a given home without its short-text index): store.appendMessage while the index
   * catches up (µs of CPU), and the catch-up itself — its slices run between writes, on the same thread, so what
   * they hold the thread for is the CPU between two ticks of a timer; `behind` is what was left when the wait ended.
   */
  catchingUp?: {
    rows: number
    messageWriteCpuUs: Percentiles
    catchUp: {
      wallS: number
      cpuS: number
      /** CPU between two ticks of a 1 ms timer while it catches up: what one slice holds the thread for. */
      tickCpuMs: { p99: number; max: number }
      /** The same in wall time (a loaded machine's waits counted in). */
      eventLoopMaxMs: number
      behind: number
    }
  }
  /** store.getMessagesAsConversation of a session with ~50 messages (µs of CPU). */
  conversationReadCpuUs: Percentiles
  sessions: number
}

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Writes to the store's file (a bench session, another connection's commits): only on a home the bench may write. */
export async function measureHotPaths(store: SessionStore, rounds = 40): Promise<HotPathResult> {
  const other = new Database(store.path)
  try {
    const ids = other.prepare<[], string>('SELECT id FROM sessions ORDER BY rowid').pluck().all()
    const settle = () => new Promise((r) => setTimeout(r, 5)) // a commit's file events find nothing new
    // A turn's own calls first, with no watcher running: its wake-up on the store's own commit would be counted in.
    const read =
      other
        .prepare<[], string>(
          'SELECT session_id FROM messages GROUP BY session_id HAVING count(*) BETWEEN 40 AND 60 LIMIT 1'
        )
        .pluck()
        .get() ?? ids[0]!
    const writeTo = `bench_hot_${process.pid}`
    await store.createSession(writeTo, 'cli')
    const write: number[] = []
    const conversation: number[] = []
    for (let i = 0; i < rounds + 5; i++) {
      let t = cpuMs()
      await store.appendMessage(writeTo, { role: i % 2 ? 'assistant' : 'user', content: `bench write ${i}` })
      if (i >= 5) write.push((cpuMs() - t) * 1000)
      t = cpuMs()
      store.getMessagesAsConversation(read)
      if (i >= 5) conversation.push((cpuMs() - t) * 1000)
      await settle()
    }

    const pick = (i: number) => ids[(i * 7919) % ids.length]!
    const setTitle = other.prepare<[string, string]>('UPDATE sessions SET title = ? WHERE id = ?')
    const insert = other.prepare<[string, string, string, number]>(
      'INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)'
    )
    const count = other.prepare<[number, string]>(
      'UPDATE sessions SET message_count = COALESCE(message_count, 0) + ? WHERE id = ?'
    )
    const append = other.transaction((id: string, i: number) => {
      insert.run(id, 'user', `bench append ${i}`, Date.now() / 1000)
      count.run(1, id)
    })
    const title: number[] = []
    const appended: number[] = []
    const watcher = new SessionWatcher(store, () => {}, { fallbackMs: 60_000 }).start()
    let rowDiffs = 0
    try {
      for (let i = 0; i < rounds + 5; i++) {
        for (const kind of i % 2 ? (['title', 'append'] as const) : (['append', 'title'] as const)) {
          if (kind === 'title') setTitle.run(`bench title ${i}`, pick(i))
          else append(pick(i + 1), i)
          const rowsBefore = watcher.stats.rowDiffs
          const t = cpuMs()
          const named = watcher.check()
          const used = cpuMs() - t
          if (i >= 5) rowDiffs += watcher.stats.rowDiffs - rowsBefore
          if (named.length === 0) throw new Error(`the watcher missed a ${kind} commit`)
          if (i >= 5) (kind === 'title' ? title : appended).push(used)
          await settle()
        }
      }
    } finally {
      watcher.stop()
    }
    return {
      watcherCheckTitleCpuMs: percentiles(title, 2),
      watcherCheckAppendCpuMs: percentiles(appended, 2),
      watcherRowDiffs: { rows: rowDiffs, of: title.length + appended.length },
      messageWriteCpuUs: percentiles(write, 0),
      conversationReadCpuUs: percentiles(conversation, 0),
      sessions: ids.length
    }
  } finally {
    other.close()
  }
}

/**
 * Writes on a home whose short-text index is not current (a home Caduceus never wrote), then the wait until it is (at
 * most `maxWaitS`): the write's CPU as a turn pays it, and what catching up costs the thread.
 */
async function measureCatchingUp(
  store: SessionStore,
  rounds = 40,
  maxWaitS = 300
): Promise<HotPathResult['catchingUp']> {
  const raw = new Database(store.path, { readonly: true })
  try {
    const rows = Number(raw.prepare('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get())
    const writeTo = `bench_catchup_${process.pid}`
    await store.createSession(writeTo, 'cli')
    const write: number[] = []
    for (let i = 0; i < rounds + 5; i++) {
      const t = cpuMs()
      await store.appendMessage(writeTo, { role: i % 2 ? 'assistant' : 'user', content: `bench write ${i}` })
      if (i >= 5) write.push((cpuMs() - t) * 1000)
      await new Promise((r) => setTimeout(r, 5))
    }
    // The slices run between the event loop's other work: a 1 ms ticker meanwhile sees each one as the CPU spent
    // between two of its ticks (CPU, not wall time: a shared machine's load would be counted in).
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()
    const t0 = performance.now()
    const c0 = cpuMs()
    const shape = detectShape(raw)
    const behind = () => shortIndexState(raw, shape)?.behind ?? rows
    const gaps: number[] = []
    let last = cpuMs()
    for (let i = 0; performance.now() - t0 < maxWaitS * 1000; i++) {
      if (i % 50 === 0 && behind() === 0) break
      await new Promise((r) => setTimeout(r, 1))
      const now = cpuMs()
      gaps.push(now - last)
      last = now
    }
    delay.disable()
    gaps.sort((a, b) => a - b)
    const at = (q: number) => Number((gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] ?? 0).toFixed(1))
    return {
      rows,
      messageWriteCpuUs: percentiles(write, 0),
      catchUp: {
        wallS: Number(((performance.now() - t0) / 1000).toFixed(1)),
        cpuS: Number(((cpuMs() - c0) / 1000).toFixed(2)),
        tickCpuMs: { p99: at(0.99), max: at(1) },
        eventLoopMaxMs: Number((delay.max / 1e6).toFixed(1)),
        behind: behind()
      }
    }
  } finally {
    raw.close()
  }
}

/** A copy of `home`'s profile (SQLite's backup: consistent while another program writes it), or a generated home. */
export async function runHotPathBench(opts: { home?: string; profile?: string } = {}): Promise<HotPathResult> {
  const temp = mkdtempSync(join(tmpdir(), 'cad-bench-hot-'))
  const profile = opts.profile ?? 'default'
  const registry = new StoreRegistry(temp)
  try {
    if (opts.home) {
      const dest = stateDbOf(temp, profile)
      mkdirSync(dirname(dest), { recursive: true })
      const src = new Database(stateDbOf(opts.home, profile), { readonly: true, fileMustExist: true })
      try {
        await src.backup(dest)
      } finally {
        src.close()
      }
    }
    const store = registry.get(profile)
    if (!opts.home) generateBulk(store, { sessions: 10_000, messagesPerSession: 50 })
    // a given home Caduceus never indexed: its writes while the short-text index catches up, and the catch-up
    const probe = new Database(store.path, { readonly: true })
    const unindexed = !shortIndexState(probe, detectShape(probe))
    probe.close()
    const catchingUp = opts.home && unindexed ? await measureCatchingUp(store) : undefined
    // Caduceus's short-text index made current (one write with no time budget), for the steady state's numbers.
    await store.write((tx) => shortIndexStep(txDb(tx), store.shape, { budgetMs: Number.POSITIVE_INFINITY }))
    return { ...(await measureHotPaths(store)), ...(catchingUp ? { catchingUp } : {}) }
  } finally {
    registry.closeAll()
    rmSync(temp, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const { values } = parseArgs({ options: { home: { type: 'string' }, profile: { type: 'string' } } })
  void runHotPathBench(values).then((r) => console.log(JSON.stringify(r, null, 2)))
}
