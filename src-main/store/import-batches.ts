/**
 * An import's writes, in bounded transactions with the write lock let go in between. One transaction for a whole
 * file held the lock for as long as the file took (16–30 s for 64 MiB): the main process stalled for all of it, and
 * another program's writer — upstream's gives up after about 16 s — failed with "database is locked".
 *
 * Each transaction runs on a connection of the import's own (open.ts openImportConnection) and spans several turns
 * of the event loop: sessions are written in slices of at most SLICE_MS, the loop turns between slices, and the
 * transaction commits after HOLD_MS or MAX_ROWS rows. The store's connection is not inside it, so the host's reads
 * and writes go on meanwhile (a write of this process meets the lock as it would another program's, and waits off the
 * loop). Then the lock stays free for GAP_MS, and at least every LONG_GAP_EVERY_MS for LONG_GAP_MS, longer than a
 * waiting writer sleeps between two polls of the lock (SQLite's busy handler: ≤ 100 ms; upstream retries with jitter
 * for ~16 s), so another program's write gets in; and a write through the store — queued behind this process's own
 * writes, so those go first — reports the sessions that landed and lets the short index catch up.
 *
 * Committing every ~30 ms on the store's own connection (the loop cannot turn inside a transaction there) made a
 * 64 MiB import take 36 s where one transaction took 22 s (111 s on a loaded machine): ~1,500 commits each wrote FTS
 * segments and synced, and the gaps, each a sleep the scheduler stretches under load, were a quarter of the time.
 * Holding longer, in slices, commits ~7× less often (bench/import-bench.ts: 85 s, 10% less CPU, on the same loaded
 * machine); intermediate commits skip the WAL sync (synchronous=NORMAL on this connection: consistent, only not yet
 * durable) and the store's write after each one, at the store's own setting, makes everything before it durable.
 * The WAL is checkpointed (PASSIVE) in a turn of its own after each commit rather than inside it.
 * Most of the rest is SQLite indexing each message (the trigram index alone ~75 µs a message here).
 *
 * Each transaction builds its own counts and they are added only once it committed.
 */
import type Database from 'better-sqlite3'
import {
  importBatch,
  type BatchReport,
  type ImportSummary,
  type ParsedRecord,
  type SessionInProgress
} from './session-import'
import { type WriteTx } from './write-tx'
import { backoffMs, isBusy } from './write-queue'
import { errorMessage } from '@shared/contract/errors'

/** Sessions written per transaction, at most. */
const BATCH_SESSIONS = 200
/** Session and message rows per transaction, at most: bounds what one COMMIT writes (and how long it blocks the loop). */
const MAX_ROWS = 1500
/** Longest run of writes between two turns of the event loop. */
const SLICE_MS = 15
/** How long one transaction keeps the write lock (its slices and the loop's turns between them) before it commits. */
const HOLD_MS = 250
/** The write lock stays free this long between transactions. */
const GAP_MS = 10
/**
 * Longer than SQLite's busy handler sleeps between two polls once a waiter has waited a while (100 ms): a writer
 * waiting on the lock is sure to take it in such a gap, where a short one it meets only by chance. One comes at
 * least every LONG_GAP_EVERY_MS, so another program's write waits about that long at worst.
 */
const LONG_GAP_MS = 110
const LONG_GAP_EVERY_MS = 800

type Write = <T>(fn: (tx: WriteTx) => T) => Promise<T>

/** What the import needs of its store: its writes (queued with the process's others) and a connection of its own. */
export interface ImportTarget {
  write: Write
  connect: () => Database.Database
  /** How long a transaction may wait for the lock (the store's write retry budget). */
  retryMs: () => number
  /** The identity of the file at the store's path now (open.ts fileAt), null when none. */
  fileId: () => string | null
  /** Runs `fn` when the store lets go of its file (SessionStore.beforeMove); returns the unregister. */
  beforeMove: (fn: () => void) => () => void
}

/** The file at the store's path is no longer the one the import's connection writes (a backup restored by rename). */
class FileReplaced extends Error {}
/** Times an import starts over in a replaced file before it stops. */
const MAX_RESTARTS = 3

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const turn = () => new Promise<void>((r) => setImmediate(r))

/** Runs `sql` (BEGIN IMMEDIATE, COMMIT), retrying off the loop while the database is busy, up to `budgetMs`. */
async function persist(db: Database.Database, sql: string, budgetMs: number): Promise<void> {
  const started = Date.now()
  for (let tries = 0; ; tries++) {
    try {
      db.exec(sql)
      return
    } catch (err) {
      if (!isBusy(err) || Date.now() - started >= budgetMs) throw err
    }
    await sleep(Math.min(backoffMs(tries), Math.max(1, started + budgetMs - Date.now())))
  }
}

/**
 * Writes `records` transaction by transaction and adds what landed to `summary`. A transaction that fails as a
 * whole (the lock stayed taken past the retry budget, a full disk) stops the import: the summary then counts the
 * sessions of the transactions that committed and names every session that was not imported, first in its errors.
 * When nothing was imported yet the error is thrown instead, as the one-transaction import did.
 */
export async function importInBatches(
  target: ImportTarget,
  records: ParsedRecord[],
  summary: ImportSummary
): Promise<void> {
  const { ordered, duplicates } = planImport(records)
  summary.errors.push(...duplicates)
  const reported = summary.errors.length
  // The store's first write creates a missing state.db and brings its schema up to date before the import's own
  // connection opens it (and, after a replace, follows the store to the new file).
  const open = async () => {
    await target.write(() => undefined)
    const conn = target.connect()
    conn.pragma('synchronous = NORMAL')
    // The WAL is copied back into the database after each commit in a turn of its own (below), not inside COMMIT.
    conn.pragma('wal_autocheckpoint = 0')
    // A restore that leaves the old -wal/-shm beside the new file: the store lets go of the old file (never inside
    // this connection's transaction, which keeps the old log from being emptied), and this connection goes with it,
    // or its hold on the -shm would keep the old wal-index alive for the next program to open the new file. The next
    // transaction then finds the file replaced and starts over there.
    const off = target.beforeMove(() => conn.close())
    return { conn, id: target.fileId(), off }
  }
  let { conn: db, id: fileId, off: leave } = await open()
  let from = 0
  let restarts = 0
  let longGap = performance.now()
  try {
    while (from < ordered.length) {
      if (from > 0) {
        const long = performance.now() - longGap >= LONG_GAP_EVERY_MS
        await sleep(long ? LONG_GAP_MS : GAP_MS)
        if (long) longGap = performance.now()
      }
      let part: BatchReport
      try {
        const same = () => {
          if (target.fileId() !== fileId) throw new FileReplaced('state.db was replaced during the import')
        }
        part = await transaction(db, ordered, from, target.retryMs(), same)
      } catch (err) {
        if (err instanceof FileReplaced && restarts < MAX_RESTARTS) {
          // What went before is in the file that was replaced: the whole file is imported again into the one now at
          // the path (sessions it already holds are skipped), and the summary counts that import only.
          restarts++
          leave()
          db.close()
          ;({ conn: db, id: fileId, off: leave } = await open())
          Object.assign(summary, { imported: 0, skipped: 0, detached: 0, ignoredFields: {} })
          summary.errors.length = reported
          from = 0
          continue
        }
        if (from === 0) throw err
        stopped(summary, ordered, from, err)
        return
      }
      summary.imported += part.landed.length
      summary.skipped += part.skipped
      summary.detached += part.detached
      summary.errors.push(...part.errors)
      for (const [k, n] of Object.entries(part.ignoredFields))
        summary.ignoredFields[k] = (summary.ignoredFields[k] ?? 0) + n
      from = part.next
      try {
        // reported (and the short index brought up) by a write queued behind this process's own, then made durable
        await target.write((tx) => tx.touch(...part.landed))
      } catch (err) {
        if (from < ordered.length) stopped(summary, ordered, from, err)
        return
      }
    }
  } finally {
    leave()
    db.close()
  }
}

/** One transaction from `from` on: slices of writes with the loop turning between them, then COMMIT. */
async function transaction(
  db: Database.Database,
  ordered: ParsedRecord[],
  from: number,
  budgetMs: number,
  sameFile: () => void
): Promise<BatchReport> {
  sameFile()
  await persist(db, 'BEGIN IMMEDIATE', budgetMs)
  const part: BatchReport = { landed: [], skipped: 0, detached: 0, errors: [], ignoredFields: {}, next: from }
  try {
    const began = performance.now()
    let rows = 0
    // a session cut between slices (a long one): finished before anything else, and never committed half-written
    let inProgress: SessionInProgress | null = null
    for (;;) {
      const room = {
        sessions: BATCH_SESSIONS - part.landed.length - part.errors.length - (inProgress ? 1 : 0),
        rows: MAX_ROWS - rows,
        empty: rows === 0
      }
      const slice = importBatch(db, ordered, part.next, room, SLICE_MS, inProgress)
      inProgress = slice.inProgress
      part.landed.push(...slice.landed)
      part.skipped += slice.skipped
      part.detached += slice.detached
      part.errors.push(...slice.errors)
      for (const [k, n] of Object.entries(slice.ignoredFields)) part.ignoredFields[k] = (part.ignoredFields[k] ?? 0) + n
      rows += slice.rows
      part.next = slice.next
      if (!inProgress && (part.next >= ordered.length || slice.full || performance.now() - began >= HOLD_MS)) break
      await turn()
    }
    await turn()
    sameFile() // never commit into a file no longer at the path
    await persist(db, 'COMMIT', budgetMs)
    await turn()
    // PASSIVE: copies what it can without waiting on anyone; a no-op on a rollback-journal home
    db.pragma('wal_checkpoint(PASSIVE)')
    return part
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw err
  }
}

/** The report of an import that stopped at `from`: every session from there on named, first. */
function stopped(summary: ImportSummary, ordered: ParsedRecord[], from: number, err: unknown): void {
  const cause = errorMessage(err).split('\n')[0]!.slice(0, 300)
  summary.errors.unshift(
    ...ordered.slice(from).map(({ line, rec }) => ({
      id: String(rec.id).trim(),
      line,
      reason: `not imported: the import stopped after ${summary.imported} sessions (${cause}); import the file again to add the rest (sessions already present are skipped)`
    }))
  )
}

/**
 * The order an import writes in: each id once, from the first line in file order that has it (upstream's rule;
 * later lines are reported), parents before their children (so a child in a later batch finds its parent).
 */
function planImport(parsed: ParsedRecord[]): { ordered: ParsedRecord[]; duplicates: ImportSummary['errors'] } {
  const firsts: ParsedRecord[] = []
  const duplicates: ImportSummary['errors'] = []
  const seen = new Set<string>()
  for (const p of parsed) {
    const id = String(p.rec.id).trim()
    if (seen.has(id)) duplicates.push({ id, line: p.line, reason: 'duplicate session id' })
    else {
      seen.add(id)
      firsts.push(p)
    }
  }
  const byId = new Map(firsts.map((p) => [p.rec.id, p.rec]))
  const depths = new Map(firsts.map((p) => [p, depth(p.rec, byId)]))
  return { ordered: [...firsts].sort((a, b) => depths.get(a)! - depths.get(b)!), duplicates }
}

function depth(rec: Record<string, unknown>, byId: Map<unknown, Record<string, unknown>>): number {
  let d = 0
  let cur = rec
  const seen = new Set<unknown>()
  while (
    typeof cur.parent_session_id === 'string' &&
    byId.has(cur.parent_session_id) &&
    !seen.has(cur.id) &&
    d < 1000
  ) {
    seen.add(cur.id)
    cur = byId.get(cur.parent_session_id)!
    d++
  }
  return d
}
