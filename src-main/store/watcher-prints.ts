/**
 * The watcher's memory of every session's visible columns, kept as a TEMP table on its own connection and
 * diffed against `sessions` in SQL. Comparing columns with `IS NOT` through the temp table's index costs
 * ~a quarter of building a quoted fingerprint string per row and diffing 10,000 strings in JS, which was
 * most of write→event latency. Values keep their column affinity (CREATE … AS SELECT), so `IS NOT` sees
 * the changes the quoted fingerprint saw (NULL vs '', a value or storage-class change).
 */
import type Database from 'better-sqlite3'

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
  'output_tokens'
] as const

const T = 'temp.cad_watcher_prints'
const COLS = VISIBLE_COLUMNS.join(', ')
const CHANGED = VISIBLE_COLUMNS.map((c) => `s.${c} IS NOT p.${c}`).join(' OR ')

export class VisiblePrints {
  private ready = false
  private stmts: Record<'changed' | 'gone' | 'upsert' | 'drop', Database.Statement> | null = null
  constructor(private readonly conn: Database.Database) {}

  /** Create the table (empty: every existing row then reads as changed, like an empty snapshot). */
  private ensure(): void {
    if (this.ready) return
    this.conn.exec(`CREATE TABLE IF NOT EXISTS ${T} AS SELECT id, ${COLS} FROM main.sessions WHERE 0;
      CREATE UNIQUE INDEX IF NOT EXISTS temp.cad_watcher_prints_id ON cad_watcher_prints(id)`)
    this.ready = true
  }

  /** Baseline: remember every row as it is now. */
  reset(): void {
    this.ensure()
    this.conn.exec(`DELETE FROM ${T}; INSERT INTO ${T} SELECT id, ${COLS} FROM main.sessions`)
  }

  /** Ids whose visible columns changed, appeared or vanished since the last call; remembers the new state. */
  diff(): string[] {
    this.ensure()
    const q = (this.stmts ??= {
      changed: this.conn
        .prepare(`SELECT s.id FROM main.sessions s LEFT JOIN ${T} p ON p.id = s.id WHERE p.id IS NULL OR ${CHANGED}`)
        .pluck(),
      gone: this.conn
        .prepare(`SELECT p.id FROM ${T} p WHERE NOT EXISTS (SELECT 1 FROM main.sessions s WHERE s.id = p.id)`)
        .pluck(),
      upsert: this.conn.prepare(
        `INSERT OR REPLACE INTO ${T} SELECT id, ${COLS} FROM main.sessions WHERE id IN (SELECT value FROM json_each(?))`
      ),
      drop: this.conn.prepare(`DELETE FROM ${T} WHERE id IN (SELECT value FROM json_each(?))`)
    })
    const changed = q.changed.all() as unknown[]
    const gone = q.gone.all() as unknown[]
    if (changed.length) q.upsert.run(JSON.stringify(changed))
    if (gone.length) q.drop.run(JSON.stringify(gone))
    return [...changed, ...gone].map(String)
  }
}
