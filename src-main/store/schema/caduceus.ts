/**
 * Tables outside upstream's SCHEMA_SQL that the store reads or writes. Declared here so their row types are
 * derived like every other table's (`$inferSelect`); neither is in DECLARED_TABLES (reconcile never creates
 * them on open).
 * - `cad_memory_events`: Caduceus-only memory activity log, created and extended additively by its first
 *   insert (store/memory-events-repo.ts generates that DDL from this definition).
 * - `cad_pending_notices`: Caduceus-only; a follow-up notice (a finished background process's) recorded the moment it
 *   exists and deleted in the transaction that appends it to its session, so a host killed before it could append
 *   the notice leaves it here for the next start (store/pending-notices-repo.ts creates it on its first insert).
 * - `gateway_heartbeats`: written by an upstream gateway, only ever read here (store/gateway-heartbeats.ts).
 * - `compression_locks`: upstream's lease on a session being compressed (its SCHEMA_SQL from v22 on); taken and
 *   released here only where the home has the table (store/compression-publish.ts).
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

export const cadPendingNotices = sqliteTable('cad_pending_notices', {
  /** What finished (`proc_…`): one notice each. */
  notice_id: text('notice_id').primaryKey(),
  /** The session it was started from; the notice goes to that conversation's live tip. */
  session_id: text('session_id').notNull(),
  role: text('role').notNull().default('user'),
  content: text('content').notNull().default(''),
  display_kind: text('display_kind'),
  /** JSON text, as messages.display_metadata. */
  display_metadata: text('display_metadata'),
  /** The host process that will append it (pid + start time, as async_delegations' owner); NULL: anyone's. */
  owner_pid: integer('owner_pid'),
  owner_started: integer('owner_started'),
  /** Which host graph of that process (one process may run several in turn). */
  owner_token: text('owner_token'),
  created_at: real('created_at').notNull().default(0)
})

export const gatewayHeartbeats = sqliteTable('gateway_heartbeats', {
  backend_id: text('backend_id').primaryKey(),
  pid: integer('pid').notNull(),
  started_at: real('started_at').notNull(),
  last_heartbeat: real('last_heartbeat').notNull(),
  profile: text('profile').notNull().default(''),
  host: text('host').notNull().default('')
})

export const compressionLocks = sqliteTable('compression_locks', {
  session_id: text('session_id').primaryKey(),
  /** Who holds it: upstream's holders name their process (`pid=<n>:…`); ours too. */
  holder: text('holder').notNull(),
  acquired_at: real('acquired_at').notNull(),
  expires_at: real('expires_at').notNull()
})
