/**
 * `cad_memory_events`: Caduceus-only table in each profile's state.db holding the memory activity log.
 * Created and reconciled additively here (never dropped); the memory subsystem reaches it only through
 * these typed functions. Writes are the log's own batched transaction (not `store.write()`): the log must
 * never wait on, or fail, a turn.
 */
import type Database from 'better-sqlite3'
import { sqliteOf, type SessionStore } from './session-store'

const COLUMNS: Array<[string, string]> = [
  ['provider', "TEXT NOT NULL DEFAULT ''"],
  ['kind', "TEXT NOT NULL DEFAULT 'hook'"],
  ['name', "TEXT NOT NULL DEFAULT ''"],
  ['session_id', 'TEXT'],
  ['turn_id', 'TEXT'],
  ['ok', 'INTEGER NOT NULL DEFAULT 1'],
  ['latency_ms', 'REAL'],
  ['summary', "TEXT NOT NULL DEFAULT ''"],
  ['size', 'INTEGER'],
  ['at', 'REAL NOT NULL DEFAULT 0']
]

/** A row as stored; values written by another version may be odd, so the reader coerces. */
export interface MemoryEventRow {
  id: number
  provider: unknown
  kind: unknown
  name: unknown
  session_id: unknown
  turn_id: unknown
  ok: unknown
  latency_ms: unknown
  summary: unknown
  size: unknown
  at: unknown
}

export interface NewMemoryEventRow {
  provider: string
  kind: string
  name: string
  sessionId: string | null
  turnId: string | null
  ok: boolean
  latencyMs: number | null
  summary: string
  size: number | null
  at: number
}

export interface MemoryEventFilter {
  kinds?: string[]
  refusalsOnly?: boolean
  provider?: string
  sessionId?: string
  beforeId?: number
  limit: number
}

/** `conn` is read per call: a lazily opened profile's store swaps connections when its first write creates state.db. */
/** Per-provider counts over the activity log (one row per provider). */
interface ProviderStatsRow {
  provider: string
  calls: number
  errors: number
  refusals: number
  syncs: number
  sync_failures: number
  writes: number
}

function repo(conn: () => Database.Database) {
  let tableOn: Database.Database | null = null
  /** Creates the table (first insert on a connection): only ever inside Caduceus's own write. */
  const ensure = (db: Database.Database): void => {
    if (tableOn === db && exists()) return // a rolled-back first insert takes its CREATE with it
    db.exec(
      `CREATE TABLE IF NOT EXISTS main.cad_memory_events (id INTEGER PRIMARY KEY AUTOINCREMENT, ${COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})`
    )
    const have = new Set(
      (db.prepare('PRAGMA main.table_info(cad_memory_events)').all() as Array<{ name: string }>).map((c) => c.name)
    )
    for (const [name, type] of COLUMNS)
      if (!have.has(name)) db.exec(`ALTER TABLE main.cad_memory_events ADD COLUMN ${name} ${type}`)
    db.exec('CREATE INDEX IF NOT EXISTS main.idx_cad_memory_events_provider ON cad_memory_events(provider, id)')
    db.exec('CREATE INDEX IF NOT EXISTS main.idx_cad_memory_events_session ON cad_memory_events(session_id, id)')
    tableOn = db
  }
  /** Reads of a home without the table (nothing recorded yet) see nothing, and create nothing. */
  const exists = (): boolean =>
    conn().prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'cad_memory_events'").get() !==
    undefined
  const insert = (e: NewMemoryEventRow): number => {
    const db = conn()
    ensure(db)
    return Number(
      db
        .prepare(
          `INSERT INTO main.cad_memory_events (provider, kind, name, session_id, turn_id, ok, latency_ms, summary, size, at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        )
        .run(e.provider, e.kind, e.name, e.sessionId, e.turnId, e.ok ? 1 : 0, e.latencyMs, e.summary, e.size, e.at)
        .lastInsertRowid
    )
  }
  return {
    /** One row; call inside the store's write (or `insertBatch`). */
    insert,
    /** One plain transaction for the whole batch (no store writer); ids in batch order. */
    insertBatch(batch: NewMemoryEventRow[]): number[] {
      return conn().transaction(() => batch.map(insert))()
    },
    /** Newest first. */
    list(q: MemoryEventFilter): MemoryEventRow[] {
      if (!exists()) return []
      const where: string[] = []
      const params: unknown[] = []
      if (q.kinds?.length) {
        where.push(`kind IN (${q.kinds.map(() => '?').join(',')})`)
        params.push(...q.kinds)
      }
      if (q.refusalsOnly) where.push(`kind = 'refusal'`)
      if (q.provider) (where.push('provider = ?'), params.push(q.provider))
      if (q.sessionId) (where.push('session_id = ?'), params.push(q.sessionId))
      if (q.beforeId !== undefined) (where.push('id < ?'), params.push(q.beforeId))
      const sql = `SELECT * FROM cad_memory_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`
      return conn()
        .prepare(sql)
        .all(...params, q.limit) as MemoryEventRow[]
    },
    providerStats(): ProviderStatsRow[] {
      if (!exists()) return []
      return conn()
        .prepare(
          `
      SELECT provider,
        SUM(CASE WHEN kind NOT IN ('refusal','error') THEN 1 ELSE 0 END) AS calls,
        SUM(CASE WHEN kind = 'error' OR (ok = 0 AND kind <> 'refusal') THEN 1 ELSE 0 END) AS errors,
        SUM(CASE WHEN kind = 'refusal' THEN 1 ELSE 0 END) AS refusals,
        SUM(CASE WHEN name = 'sync_turn' AND kind = 'sync' AND ok = 1 THEN 1 ELSE 0 END) AS syncs,
        SUM(CASE WHEN name = 'sync_turn' AND (kind = 'error' OR ok = 0) THEN 1 ELSE 0 END) AS sync_failures,
        SUM(CASE WHEN (kind = 'write' OR name = 'on_memory_write') AND ok = 1 THEN 1 ELSE 0 END) AS writes
      FROM cad_memory_events GROUP BY provider ORDER BY provider`
        )
        .all() as ProviderStatsRow[]
    },
    lastError(provider: string): { summary: string; at: number } | undefined {
      return conn()
        .prepare(
          `SELECT summary, at FROM cad_memory_events WHERE provider = ? AND (kind = 'error' OR (ok = 0 AND kind <> 'refusal')) ORDER BY id DESC LIMIT 1`
        )
        .get(provider) as { summary: string; at: number } | undefined
    },
    /** Latencies of the newest 1000 events that have one (unsorted). */
    recentLatencies(provider: string): number[] {
      return (
        conn()
          .prepare(
            `SELECT latency_ms AS l FROM cad_memory_events WHERE provider = ? AND latency_ms IS NOT NULL ORDER BY id DESC LIMIT 1000`
          )
          .all(provider) as Array<{ l: number }>
      ).map((r) => r.l)
    },
    /** The last recall a turn used, ok or failed (older rows: a failure was kind 'error'); never the warm-up. */
    lastPrefetch(
      provider: string
    ): { ok: number; latency_ms: number | null; size: number | null; at: number; summary: string } | undefined {
      return conn()
        .prepare(
          `SELECT ok, latency_ms, size, at, summary FROM cad_memory_events
           WHERE provider = ? AND name = 'prefetch' AND kind IN ('prefetch', 'error')
             AND summary NOT LIKE 'skipped:%' ORDER BY id DESC LIMIT 1`
        )
        .get(provider) as
        { ok: number; latency_ms: number | null; size: number | null; at: number; summary: string } | undefined
    },
    lastSyncError(provider: string): { summary: string; at: number } | undefined {
      return conn()
        .prepare(
          `SELECT summary, at FROM cad_memory_events WHERE provider = ? AND name = 'sync_turn' AND (kind = 'error' OR ok = 0) ORDER BY id DESC LIMIT 1`
        )
        .get(provider) as { summary: string; at: number } | undefined
    },
    /** Keep the newest `retention` rows; call inside Caduceus's own write (after inserts). */
    prune(retention: number): void {
      if (!exists()) return
      conn()
        .prepare(
          `DELETE FROM cad_memory_events WHERE id <= (SELECT id FROM cad_memory_events ORDER BY id DESC LIMIT 1 OFFSET ?)`
        )
        .run(retention)
    }
  }
}

export type MemoryEventsRepo = ReturnType<typeof repo>

/** The activity-log table of one profile's store. */
export function memoryEventsRepo(store: SessionStore): MemoryEventsRepo {
  return repo(() => sqliteOf(store))
}
