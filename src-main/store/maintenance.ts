/**
 * `caduceus sessions optimize` and `sessions repair --check-only` on a state.db file, each on a connection of its
 * own (the store's connection carries the read shim's TEMP views; repair's check must also work on a file the
 * store cannot open). Neither rebuilds an FTS index: FTS5 'optimize' merges an index's segments (the doclists are
 * copied, no text is tokenized again), VACUUM copies pages. A rebuild would tokenize every row with this SQLite,
 * and rows holding a NUL byte are tokenized differently by upstream's (fts-nul.ts), so its index would no longer
 * match the rows for upstream.
 */
import { existsSync } from 'node:fs'
import { openImportConnection } from './open'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { sqliteMaster } from './schema'
import { errorMessage } from '@shared/contract/errors'

/** The FTS indexes upstream merges (its optimize and repair name these two). */
const FTS_TABLES = ['messages_fts', 'messages_fts_trigram'] as const
/** How long optimize waits for another writer (VACUUM needs the database to itself). */
const BUSY_MS = 5000

/** What optimize did: how many FTS indexes were merged. */
export function optimizeFile(path: string): { indexes: number } {
  const db = openImportConnection(path)
  try {
    db.pragma(`busy_timeout = ${BUSY_MS}`)
    let indexes = 0
    for (const t of FTS_TABLES) {
      const exists = stmt<ColumnsOf<typeof sqliteMaster, 'name'>>(
        db,
        "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name = ?"
      ).get(t)
      if (!exists) continue
      db.prepare(`INSERT INTO ${t}(${t}) VALUES('optimize')`).run()
      indexes++
    }
    db.exec('VACUUM')
    // In WAL mode the rewritten pages sit in the -wal file until a checkpoint; fold them in now (best effort: a
    // reader elsewhere can hold part of it back), so the file's size says what was reclaimed.
    if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal')
      db.pragma('wal_checkpoint(TRUNCATE)')
    return { indexes }
  } finally {
    db.close()
  }
}

export interface FileHealth {
  /** Why the file is not healthy (as upstream's check finds it), or null. */
  problem: string | null
  /**
   * FTS indexes this SQLite reports malformed while rows hold a NUL byte: upstream's SQLite indexes those rows
   * differently, so this verdict is not to be trusted (upstream's own check decides).
   */
  unjudged: string[]
}

/**
 * Upstream's health check in our terms: the schema parses, `integrity_check` passes, sessions can be read, and a
 * message can be written through the FTS triggers (in a transaction always rolled back).
 */
export function checkFile(path: string): FileHealth {
  if (!existsSync(path)) return { problem: `${path} does not exist`, unjudged: [] }
  let db: ReturnType<typeof openImportConnection>
  try {
    db = openImportConnection(path)
  } catch (err) {
    return { problem: errorMessage(err), unjudged: [] }
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_MS}`)
    db.pragma('journal_mode') // the first statement parses the schema: a malformed one fails here
    const lines = (db.pragma('integrity_check') as Array<{ integrity_check: string }>)
      .map((r) => r.integrity_check)
      .filter((l) => l.toLowerCase() !== 'ok')
    const ftsOf = (l: string) => /FTS5 table main\.(\w+)/.exec(l)?.[1]
    const hasNul =
      lines.some(ftsOf) &&
      stmt<number>(
        db,
        `SELECT 1 FROM main.messages WHERE instr(CAST(content AS BLOB), X'00') > 0
          OR instr(CAST(tool_calls AS BLOB), X'00') > 0 OR instr(CAST(tool_name AS BLOB), X'00') > 0 LIMIT 1`
      )
        .pluck()
        .get() !== undefined
    const unjudged = hasNul ? lines.map(ftsOf).filter((t): t is string => t !== undefined) : []
    const problems = lines.filter((l) => !(hasNul && ftsOf(l)))
    if (problems.length) return { problem: problems.slice(0, 3).join('; '), unjudged }
    stmt<number>(db, 'SELECT count(*) FROM main.sessions').pluck().get()
    return { problem: writeProbe(db), unjudged }
  } catch (err) {
    return { problem: errorMessage(err), unjudged: [] }
  } finally {
    db.close()
  }
}

/** A session and a message inserted and rolled back: an FTS index that refuses writes fails here. */
function writeProbe(db: ReturnType<typeof openImportConnection>): string | null {
  const id = `_caduceus_health_probe_${process.pid}_${Date.now()}`
  const now = Date.now() / 1000
  db.exec('BEGIN IMMEDIATE')
  try {
    stmt(db, 'INSERT INTO main.sessions (id, source, started_at) VALUES (?, ?, ?)').run(id, '_health_probe', now)
    stmt(db, 'INSERT INTO main.messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)').run(
      id,
      'user',
      '_fts_health_probe',
      now
    )
    return null
  } catch (err) {
    const message = errorMessage(err)
    // A file without these tables yet is not the corruption this looks for (as upstream's probe reads it).
    return /no such (table|column)/i.test(message) ? null : message
  } finally {
    db.exec('ROLLBACK')
  }
}
