/**
 * An import's writes, in bounded batches. One transaction for a whole file held the write lock for as long as
 * the file took (16–30 s for 64 MiB): the main process stalled for all of it, and another program's writer —
 * upstream's gives up after about 16 s — failed with "database is locked". So each batch is its own
 * `store.write`: at most BATCH_SESSIONS sessions written or BATCH_MS spent (at least one session; a session
 * lands whole with its messages, in its own savepoint), then the lock is let go for GAP_MS, long enough for a
 * writer polling on it (SQLite's busy handler polls every ≤ 100 ms) to get in, and the event loop turns.
 *
 * Each batch builds its own counts inside its callback and returns them: the write queue re-runs a callback
 * whose transaction it retries, so nothing outside the transaction may change until it committed.
 */
import { importBatch, type ImportSummary, type ParsedRecord } from './session-import'
import { txDb, type WriteTx } from './write-tx'
import { errorMessage } from '@shared/contract/errors'

/** Sessions written per transaction, at most. */
const BATCH_SESSIONS = 50
/** Time one transaction spends on sessions before it commits (the short index's step rides on top of it). */
const BATCH_MS = 30
/** The write lock stays free this long between batches. */
const GAP_MS = 10

type Write = <T>(fn: (tx: WriteTx) => T) => Promise<T>

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * Writes `records` batch by batch through `write` and adds what landed to `summary`. A batch that fails as a
 * whole (the lock stayed taken past the retry budget, a full disk) stops the import: the summary then counts
 * the sessions of the batches that committed and names every session that was not imported, first in its
 * errors. When nothing was imported yet the error is thrown instead, as the one-transaction import did.
 */
export async function importInBatches(write: Write, records: ParsedRecord[], summary: ImportSummary): Promise<void> {
  const { ordered, duplicates } = planImport(records)
  summary.errors.push(...duplicates)
  let from = 0
  while (from < ordered.length) {
    if (from > 0) await sleep(GAP_MS)
    let part
    try {
      part = await write((tx) => {
        const report = importBatch(txDb(tx), ordered, from, BATCH_SESSIONS, BATCH_MS)
        tx.touch(...report.landed)
        return report
      })
    } catch (err) {
      if (from === 0) throw err
      const cause = errorMessage(err).split('\n')[0]!.slice(0, 300)
      summary.errors.unshift(
        ...ordered.slice(from).map(({ line, rec }) => ({
          id: String(rec.id).trim(),
          line,
          reason: `not imported: the import stopped after ${summary.imported} sessions (${cause}); import the file again to add the rest (sessions already present are skipped)`
        }))
      )
      return
    }
    summary.imported += part.landed.length
    summary.skipped += part.skipped
    summary.detached += part.detached
    summary.errors.push(...part.errors)
    for (const [k, n] of Object.entries(part.ignoredFields))
      summary.ignoredFields[k] = (summary.ignoredFields[k] ?? 0) + n
    from = part.next
  }
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
