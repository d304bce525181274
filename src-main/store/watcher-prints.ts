/**
 * The watcher's memory of every session's visible columns, kept as a TEMP table on its own connection and
 * diffed against `sessions` in SQL. Comparing columns with `IS NOT` through the temp table's index costs
 * ~a quarter of building a quoted fingerprint string per row and diffing 10,000 strings in JS, which was
 * most of write→event latency. Values keep their column affinity (CREATE … AS SELECT), so `IS NOT` sees
 * the changes the quoted fingerprint saw (NULL vs '', a value or storage-class change).
 */
import type Database from 'better-sqlite3'
import { existingColumns } from './reconcile'

// Columns a session list/detail shows; a change anywhere else is invisible and must not emit.
export const VISIBLE_COLUMNS = [
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

export class VisiblePrints {
  /** The visible columns this home has (an older upstream's v21 has no `pinned`, `last_activity_at`, …). */
  private cols: string[] | null = null
  private schema = -1
  private stmts: Record<'changed' | 'gone' | 'upsert' | 'drop', Database.Statement> | null = null
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
    const have = existingColumns(this.conn, 'sessions')
    const cols = VISIBLE_COLUMNS.filter((c) => have.has(c))
    if (this.cols && cols.join() === this.cols.join()) return false
    this.cols = cols
    this.stmts = null
    this.conn.exec(`DROP TABLE IF EXISTS ${T};
      CREATE TABLE ${T} AS SELECT ${['id', ...cols].join(', ')} FROM main.sessions WHERE 0;
      CREATE UNIQUE INDEX temp.cad_watcher_prints_id ON cad_watcher_prints(id)`)
    return true
  }

  /** Baseline: remember every row as it is now. */
  reset(): void {
    this.ensure()
    this.conn.exec(`DELETE FROM ${T}; INSERT INTO ${T} SELECT ${['id', ...this.cols!].join(', ')} FROM main.sessions`)
  }

  /** Every session id the snapshot holds (what the file showed at the last check). */
  ids(): string[] {
    if (!this.cols) return []
    return this.conn.prepare<unknown[], unknown>(`SELECT id FROM ${T}`).pluck().all().map(String)
  }

  /** Ids whose visible columns changed, appeared or vanished since the last call; remembers the new state. */
  diff(): string[] {
    const had = this.cols !== null
    if (this.ensure() && had) {
      // The visible columns changed under us: start from the rows as they are now (the schema change itself is
      // not a visible change of any one session).
      this.reset()
      return []
    }
    const q = (this.stmts ??= this.prepare(this.cols!))
    const changed = q.changed.all()
    const gone = q.gone.all()
    if (changed.length) q.upsert.run(JSON.stringify(changed))
    if (gone.length) q.drop.run(JSON.stringify(gone))
    return [...changed, ...gone].map(String)
  }

  /** The diff's statements over the home's visible columns (built once per column set, not per check). */
  private prepare(cols: string[]) {
    const COLS = ['id', ...cols].join(', ')
    const CHANGED = cols.length ? cols.map((c) => `s.${c} IS NOT p.${c}`).join(' OR ') : '0'
    return {
      changed: this.conn
        .prepare(`SELECT s.id FROM main.sessions s LEFT JOIN ${T} p ON p.id = s.id WHERE p.id IS NULL OR ${CHANGED}`)
        .pluck(),
      gone: this.conn
        .prepare(`SELECT p.id FROM ${T} p WHERE NOT EXISTS (SELECT 1 FROM main.sessions s WHERE s.id = p.id)`)
        .pluck(),
      upsert: this.conn.prepare(
        `INSERT OR REPLACE INTO ${T} SELECT ${COLS} FROM main.sessions WHERE id IN (SELECT value FROM json_each(?))`
      ),
      drop: this.conn.prepare(`DELETE FROM ${T} WHERE id IN (SELECT value FROM json_each(?))`)
    }
  }
}
