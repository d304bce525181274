/**
 * `cad_memory_events`: Caduceus-only table in each profile's state.db holding the memory activity log.
 * Created and reconciled additively here (never dropped) from its drizzle definition (schema/caduceus.ts);
 * the memory subsystem reaches it only through these typed functions. Reads are drizzle selects returning
 * camelCase records; writes take a `WriteTx`: the store's (`store.write()`, what the host uses) or, for a log
 * without the store's writer, the log's own plain transaction (`ownWrite`).
 */
import type Database from 'better-sqlite3'
import { and, desc, eq, inArray, isNotNull, lt, notInArray, notLike, or, sql, type SQL } from 'drizzle-orm'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { ormOf, sqliteOf, type SessionStore } from './session-store'
import { cadMemoryEvents as t } from './schema'
import { addColumnSql, columnFacts } from './schema/ddl'
import { currentColumns, existingColumns } from './reconcile'
import { txDb, WriteTx, type Orm } from './write-tx'

/** DDL from the table definition (schema/caduceus.ts): `id` is the key, the rest are added when missing. */
const FACTS = columnFacts(t)
const TABLE = getTableConfig(t).name
const COLUMNS = FACTS.filter((c) => !c.primary)
/** `name TYPE [NOT NULL] [DEFAULT …]`: the column as the additive reconcile would add it. */
const columnSql = (c: (typeof FACTS)[number]) => addColumnSql(TABLE, c).slice(`ALTER TABLE ${TABLE} ADD COLUMN `.length)

/** A new event (camelCase input; `ok` as a boolean). */
export interface NewMemoryEvent {
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

/** An event as stored, camelCase; types from the columns (values written by another version may be odd: the reader coerces). */
const eventFields = {
  id: t.id,
  provider: t.provider,
  kind: t.kind,
  name: t.name,
  sessionId: t.session_id,
  turnId: t.turn_id,
  ok: t.ok,
  latencyMs: t.latency_ms,
  summary: t.summary,
  size: t.size,
  at: t.at
}

/**
 * The fields to select on this connection: a table an older Caduceus created may lack columns (they are added by
 * the next insert, never by a read), so a missing column reads as its declared default, like the read shim does.
 */
function fieldsOn(db: Database.Database): typeof eventFields {
  const have = currentColumns(db, TABLE) // every page of the memory feed: read again only after a schema change
  if (FACTS.every((c) => have.has(c.name))) return eventFields
  const fields: Record<string, unknown> = {}
  for (const [key, col] of Object.entries(eventFields))
    fields[key] = have.has(col.name) ? col : sql.raw(FACTS.find((c) => c.name === col.name)?.defaultSql ?? 'NULL')
  return fields as typeof eventFields // each missing column replaced by its own declared default
}

/**
 * One failure, one error. A refusal has its own count; the host's 'provider' line (what became of a load) follows the
 * build's own record of the failure (a failed or refused initialize, a load that threw: agent-build.ts), so it is
 * neither an error again nor a call. A 'write' is what a tool call (counted) or a Memory-page edit changed.
 */
const failed = or(eq(t.kind, 'error'), and(eq(t.ok, 0), notInArray(t.kind, ['refusal', 'provider'])))
const call = notInArray(t.kind, ['refusal', 'error', 'provider', 'write'])
const sum = (cond: SQL | undefined) => sql<number>`SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END)`

/** `conn`/`orm` are read per call: a lazily opened profile's store swaps connections when its first write creates state.db. */
function repo(conn: () => Database.Database, orm: () => Orm) {
  let tableOn: Database.Database | null = null
  /** Creates the table (first insert on a connection): only ever inside a write. */
  const ensure = (db: Database.Database): void => {
    if (tableOn === db && exists()) return // a rolled-back first insert takes its CREATE with it
    db.exec(
      `CREATE TABLE IF NOT EXISTS main.${TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, ${COLUMNS.map(columnSql).join(', ')})`
    )
    const have = existingColumns(db, TABLE)
    for (const c of COLUMNS) if (!have.has(c.name)) db.exec(`ALTER TABLE main.${TABLE} ADD COLUMN ${columnSql(c)}`)
    db.exec(`CREATE INDEX IF NOT EXISTS main.idx_cad_memory_events_provider ON ${TABLE}(provider, id)`)
    db.exec(`CREATE INDEX IF NOT EXISTS main.idx_cad_memory_events_session ON ${TABLE}(session_id, id)`)
    tableOn = db
  }
  /** Reads of a home without the table (nothing recorded yet) see nothing, and create nothing. */
  const exists = (): boolean =>
    conn().prepare(`SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = '${TABLE}'`).get() !== undefined
  const insert = (tx: WriteTx, e: NewMemoryEvent): number => {
    const db = txDb(tx)
    ensure(db)
    return Number(
      db
        .prepare(
          `INSERT INTO main.${TABLE} (provider, kind, name, session_id, turn_id, ok, latency_ms, summary, size, at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        )
        .run(e.provider, e.kind, e.name, e.sessionId, e.turnId, e.ok ? 1 : 0, e.latencyMs, e.summary, e.size, e.at)
        .lastInsertRowid
    )
  }
  const latest = (where: SQL | undefined) =>
    orm().select({ summary: t.summary, at: t.at }).from(t).where(where).orderBy(desc(t.id)).limit(1).get()
  return {
    /** One row, inside a write (`store.write()` or `ownWrite`). */
    insert,
    /**
     * The log's own plain transaction on the store's connection, for a log without the store's writer (tests,
     * one-shot tools): it never queues behind, or fails, a turn's write. The host always uses `store.write()`.
     */
    ownWrite<T>(fn: (tx: WriteTx) => T): T {
      const db = conn()
      return db.transaction(() => {
        const tx = new WriteTx(conn, orm, () => {})
        try {
          return fn(tx)
        } finally {
          tx.close()
        }
      })()
    },
    /** Newest first. */
    list(q: MemoryEventFilter) {
      if (!exists()) return []
      return orm()
        .select(fieldsOn(conn()))
        .from(t)
        .where(
          and(
            q.kinds?.length ? inArray(t.kind, q.kinds) : undefined,
            q.refusalsOnly ? eq(t.kind, 'refusal') : undefined,
            q.provider ? eq(t.provider, q.provider) : undefined,
            q.sessionId ? eq(t.session_id, q.sessionId) : undefined,
            q.beforeId !== undefined ? lt(t.id, q.beforeId) : undefined
          )
        )
        .orderBy(desc(t.id))
        .limit(q.limit)
        .all()
    },
    /** Per-provider counts over the activity log (one row per provider). */
    providerStats() {
      if (!exists()) return []
      const syncTurn = eq(t.name, 'sync_turn')
      return orm()
        .select({
          provider: t.provider,
          calls: sum(call),
          errors: sum(failed),
          refusals: sum(eq(t.kind, 'refusal')),
          syncs: sum(and(syncTurn, eq(t.kind, 'sync'), eq(t.ok, 1))),
          syncFailures: sum(and(syncTurn, or(eq(t.kind, 'error'), eq(t.ok, 0)))),
          writes: sum(and(or(eq(t.kind, 'write'), eq(t.name, 'on_memory_write')), eq(t.ok, 1)))
        })
        .from(t)
        .groupBy(t.provider)
        .orderBy(t.provider)
        .all()
    },
    lastError(provider: string) {
      return latest(and(eq(t.provider, provider), failed))
    },
    /** Latencies of the newest 1000 events that have one (unsorted). */
    recentLatencies(provider: string): number[] {
      return orm()
        .select({ l: t.latency_ms })
        .from(t)
        .where(and(eq(t.provider, provider), isNotNull(t.latency_ms)))
        .orderBy(desc(t.id))
        .limit(1000)
        .all()
        .flatMap((r) => (r.l === null ? [] : [r.l]))
    },
    /** The last recall a turn used, ok or failed (older rows: a failure was kind 'error'); never the warm-up. */
    lastPrefetch(provider: string) {
      return orm()
        .select({ ok: t.ok, latencyMs: t.latency_ms, size: t.size, at: t.at, summary: t.summary })
        .from(t)
        .where(
          and(
            eq(t.provider, provider),
            eq(t.name, 'prefetch'),
            inArray(t.kind, ['prefetch', 'error']),
            notLike(t.summary, 'skipped:%')
          )
        )
        .orderBy(desc(t.id))
        .limit(1)
        .get()
    },
    lastSyncError(provider: string) {
      return latest(and(eq(t.provider, provider), eq(t.name, 'sync_turn'), or(eq(t.kind, 'error'), eq(t.ok, 0))))
    },
    /** Keep the newest `retention` rows (after inserts, in the same write). */
    prune(tx: WriteTx, retention: number): void {
      if (!exists()) return
      txDb(tx)
        .prepare(`DELETE FROM ${TABLE} WHERE id <= (SELECT id FROM ${TABLE} ORDER BY id DESC LIMIT 1 OFFSET ?)`)
        .run(retention)
    }
  }
}

export type MemoryEventsRepo = ReturnType<typeof repo>
/** One stored event (camelCase record). */
export type MemoryEventRecord = ReturnType<MemoryEventsRepo['list']>[number]

/** The activity-log table of one profile's store. */
export function memoryEventsRepo(store: SessionStore): MemoryEventsRepo {
  return repo(
    () => sqliteOf(store),
    () => ormOf(store)
  )
}
