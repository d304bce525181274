/**
 * The watcher's memory of every session's visible columns, kept as a TEMP table on its own connection and
 * diffed against `sessions` in SQL. Comparing columns with `IS NOT` through a rowid join costs ~a quarter of
 * building a quoted fingerprint string per row and diffing 10,000 strings in JS, which was most of write→event
 * latency. Values keep their column affinity, so `IS NOT` sees the changes the quoted fingerprint saw (NULL vs '', a
 * value or storage-class change). It runs on the host's thread after every commit another connection makes: over
 * the rows the WAL says were written where it can tell, else over every session (the bench's `watcherCheck*CpuMs`),
 * where reading the visible columns of each row is most of the cost.
 */
import type Database from 'better-sqlite3'
import type { pragmaTableInfo, sessions } from './schema'
import type { ColumnsOf } from './stmt-cache'

// Columns a session list/detail shows (or reads to show a row: its kind from the parent and model_config's markers);
// a change anywhere else is invisible and must not emit. The list's kept rows (list-kept.ts) are dropped by this diff.
export const VISIBLE_COLUMNS = [
  'source',
  'model',
  'parent_session_id',
  'model_config',
  'started_at',
  'api_call_count',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'message_count',
  'tool_call_count',
  'ended_at',
  'end_reason',
  'title',
  'archived',
  'pinned',
  'hidden',
  'estimated_cost_usd',
  'actual_cost_usd',
  'cost_status',
  'last_activity_at',
  'input_tokens',
  'output_tokens',
  // Upstream's rewind_to_message sets the rewound rows inactive and bumps only this on the session (message_count
  // stays): without it an open transcript is never told to drop the rewound turns.
  'rewind_count'
] as const

const T = 'temp.cad_watcher_prints'
type Id = (typeof sessions.$inferSelect)['id']
/** A snapshot row's key: the session's rowid. */
type Rid = number

/**
 * The snapshot is keyed by the sessions table's rowid (INTEGER PRIMARY KEY here), so the diff's join is a rowid seek
 * rather than a search of a text index; the id is kept and compared too, because a VACUUM may renumber rowids and an
 * insert may reuse a deleted row's: either way a row whose rowid now holds another id reads as changed (the new id)
 * and gone (the old one). Rows that vanished are looked for only when the counts say some did: once the changed
 * rows are written back, the snapshot holds one row per session plus one per row gone, so equal counts (two
 * b-tree counts, no row read) mean nothing was deleted.
 */
export class VisiblePrints {
  /** The visible columns this home has (an older upstream's v21 has no `pinned`, `last_activity_at`, …). */
  private cols: string[] | null = null
  private schema = -1
  private stmts: ReturnType<VisiblePrints['prepare']> | null = null
  constructor(private readonly conn: Database.Database) {}

  /**
   * Create the table for the columns the home has (empty: every existing row then reads as changed, like an empty
   * snapshot). When the schema moved (another program added columns), the table is made again with them.
   * Returns true when it (re)made the table.
   */
  private ensure(): boolean {
    const schema = Number(this.conn.pragma('schema_version', { simple: true }))
    if (this.cols && schema === this.schema) return false
    this.schema = schema
    const types = new Map(
      this.conn
        .prepare<unknown[], ColumnsOf<typeof pragmaTableInfo, 'name' | 'type'>>('PRAGMA main.table_info(sessions)')
        .all()
        .map((c) => [c.name, c.type])
    )
    const cols = VISIBLE_COLUMNS.filter((c) => types.has(c))
    if (this.cols && cols.join() === this.cols.join()) return false
    this.cols = cols
    this.stmts = null
    // Each column with its affinity in `sessions` (as CREATE … AS SELECT would give it), so `IS NOT` compares the
    // values as they were read, storage class included.
    const declared = ['id', ...cols].map((c) => `${c} ${affinity(types.get(c)!)}`)
    this.conn.exec(`DROP TABLE IF EXISTS ${T};
      CREATE TABLE ${T} (rid INTEGER PRIMARY KEY, ${declared.join(', ')})`)
    return true
  }

  /** Baseline: remember every row as it is now. */
  reset(): void {
    this.ensure()
    this.conn.exec(
      `DELETE FROM ${T}; INSERT INTO ${T} SELECT ${['rowid', 'id', ...this.cols!].join(', ')} FROM main.sessions`
    )
  }

  /** Every session id the snapshot holds (what the file showed at the last check). */
  ids(): string[] {
    if (!this.cols) return []
    return this.conn.prepare<unknown[], unknown>(`SELECT id FROM ${T}`).pluck().all().map(String)
  }

  /**
   * Ids whose visible columns changed, appeared or vanished since the last call; remembers the new state. `rowids`:
   * only those rows can have changed (wal-pages.ts), so only they are compared; deletions are found either way.
   */
  diff(rowids?: readonly number[]): string[] {
    const had = this.cols !== null
    if (this.ensure() && had) {
      // The visible columns changed under us: start from the rows as they are now (the schema change itself is
      // not a visible change of any one session).
      this.reset()
      return []
    }
    const q = (this.stmts ??= this.prepare(this.cols!))
    // [the id now, the id the snapshot had at that rowid when it was another one (a reused or renumbered rowid)]
    const changed = rowids ? (rowids.length ? q.changedAmong.all(JSON.stringify(rowids)) : []) : q.changed.all()
    const ids = new Set<Id | null>()
    for (const [now, was] of changed) {
      ids.add(now)
      if (was !== null) ids.add(was)
    }
    if (changed.length) q.upsert.run(JSON.stringify(changed.map(([now]) => now)))
    // After the upsert every session has its row here (its rowid, its id): any row beyond that count is one gone.
    if (q.kept.get() !== q.sessions.get()) {
      const gone = q.gone.all()
      for (const [, id] of gone) ids.add(id)
      if (gone.length) q.drop.run(JSON.stringify(gone.map(([rid]) => rid)))
    }
    return [...ids].map(String)
  }

  /** The diff's statements over the home's visible columns (built once per column set, not per check). */
  private prepare(cols: string[]) {
    const CHANGED = ['id', ...cols].map((c) => `s.${c} IS NOT p.${c}`).join(' OR ')
    return {
      changed: this.conn
        .prepare<[], [Id, Id | null]>(
          `SELECT s.id, CASE WHEN p.id IS NOT s.id THEN p.id END FROM main.sessions s LEFT JOIN ${T} p ON p.rid = s.rowid
            WHERE p.rid IS NULL OR ${CHANGED}`
        )
        .raw(),
      changedAmong: this.conn
        .prepare<[string], [Id, Id | null]>(
          `SELECT s.id, CASE WHEN p.id IS NOT s.id THEN p.id END
            FROM json_each(?) AS j CROSS JOIN main.sessions AS s LEFT JOIN ${T} AS p ON p.rid = s.rowid
            WHERE s.rowid = j.value AND (p.rid IS NULL OR ${CHANGED})`
        )
        .raw(),
      sessions: this.conn.prepare<[], number>('SELECT count(*) FROM main.sessions').pluck(),
      kept: this.conn.prepare<[], number>(`SELECT count(*) FROM ${T}`).pluck(),
      gone: this.conn
        .prepare<[], [Rid, Id | null]>(
          `SELECT p.rid, p.id FROM ${T} p WHERE NOT EXISTS (SELECT 1 FROM main.sessions s WHERE s.rowid = p.rid AND s.id IS p.id)`
        )
        .raw(),
      upsert: this.conn.prepare<[string]>(
        `INSERT OR REPLACE INTO ${T} SELECT ${['rowid', 'id', ...cols].join(', ')} FROM main.sessions
          WHERE id IN (SELECT value FROM json_each(?))`
      ),
      drop: this.conn.prepare<[string]>(`DELETE FROM ${T} WHERE rid IN (SELECT value FROM json_each(?))`)
    }
  }
}

/** The affinity SQLite gives a declared column type (its datatype rules, in their order). */
function affinity(declared: string): string {
  const t = declared.toUpperCase()
  if (t.includes('INT')) return 'INTEGER'
  if (/CHAR|CLOB|TEXT/.test(t)) return 'TEXT'
  if (t.includes('BLOB') || t === '') return ''
  if (/REAL|FLOA|DOUB/.test(t)) return 'REAL'
  return 'NUMERIC'
}
