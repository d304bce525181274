/**
 * Tables outside upstream's SCHEMA_SQL that the store reads or writes. Declared here so their row types are
 * derived like every other table's (`$inferSelect`); neither is in DECLARED_TABLES (reconcile never creates
 * them on open).
 * - `cad_memory_events`: Caduceus-only memory activity log, created and extended additively by its first
 *   insert (store/memory-events-repo.ts generates that DDL from this definition).
 * - `gateway_heartbeats`: written by an upstream gateway, only ever read here (store/gateway-heartbeats.ts).
 */
import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const cadMemoryEvents = sqliteTable('cad_memory_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  provider: text('provider').notNull().default(''),
  kind: text('kind').notNull().default('hook'),
  name: text('name').notNull().default(''),
  session_id: text('session_id'),
  turn_id: text('turn_id'),
  ok: integer('ok').notNull().default(1),
  latency_ms: real('latency_ms'),
  summary: text('summary').notNull().default(''),
  size: integer('size'),
  at: real('at').notNull().default(0)
})

export const gatewayHeartbeats = sqliteTable('gateway_heartbeats', {
  backend_id: text('backend_id').primaryKey(),
  pid: integer('pid').notNull(),
  started_at: real('started_at').notNull(),
  last_heartbeat: real('last_heartbeat').notNull(),
  profile: text('profile').notNull().default(''),
  host: text('host').notNull().default('')
})
