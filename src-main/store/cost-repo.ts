/**
 * SQL behind the cost read models (`costs.session`, `costs.summary`): session rows and the per-model and per-day
 * usage tables, returned as camelCase records whose types are derived from the drizzle table definitions
 * (schema/), so a column's type is declared once. The SQL keeps upstream's snake_case names and aliases each
 * column to its camelCase key; the money rules live with the read models (src-main/costs/).
 */
import type Database from 'better-sqlite3'
import type { sessionDailyUsage, sessionModelUsage, sessions } from './schema'
import { sqliteOf, type SessionStore } from './session-store'
import type { Camel } from './types'
import { USAGE_COUNTERS } from './usage'
import { isDelegateSql } from './sql'
import { camelKey } from './util'
/** The camelCase record of some columns of a table (`typeof table.$inferSelect`). */
type RecordOf<Row, K extends keyof Row & string> = { [C in K as Camel<C>]: Row[C] }

/** `input_tokens AS inputTokens, …`: upstream names in SQL, camelCase keys out. */
const select = (cols: readonly string[]) => cols.map((c) => `${c} AS ${camelKey(c)}`).join(', ')

const SESSION_COLS = [
  'id',
  'title',
  'source',
  'model',
  'billing_base_url',
  'model_config',
  'started_at',
  'last_activity_at',
  ...USAGE_COUNTERS,
  'cost_status',
  'hidden'
] as const satisfies ReadonlyArray<keyof typeof sessions.$inferSelect>

const MODEL_COLS = [
  'session_id',
  'model',
  ...USAGE_COUNTERS,
  'billing_provider',
  'billing_base_url',
  'billing_mode',
  'task',
  'cost_status',
  'first_seen',
  'last_seen'
] as const satisfies ReadonlyArray<keyof typeof sessionModelUsage.$inferSelect>

const DAILY_COLS = ['session_id', 'day', ...USAGE_COUNTERS] as const satisfies ReadonlyArray<
  keyof typeof sessionDailyUsage.$inferSelect
>

/** A session's cost-relevant columns. */
type CostSession = RecordOf<typeof sessions.$inferSelect, (typeof SESSION_COLS)[number]>
/** One usage route (model/endpoint/task) of a session: the atoms every cost total is built from. */
type ModelUsageRecord = RecordOf<typeof sessionModelUsage.$inferSelect, (typeof MODEL_COLS)[number]>
/** A session's usage on one local day (tokens and upstream's cost). */
type DailyUsageRecord = RecordOf<typeof sessionDailyUsage.$inferSelect, (typeof DAILY_COLS)[number]>

/** A session id (the links walk reads ids and non-null parent ids). */
type SessionId = (typeof sessions.$inferSelect)['id']

const SESSION_SELECT = select(SESSION_COLS)
const MODEL_SELECT = select(MODEL_COLS)
const DAILY_SELECT = select(DAILY_COLS)

/** The top of `id`'s chain of run → parent links; on a loop, the loop's smallest id (whichever member the walk began at). */
function topOf(parentOf: Map<string, string>, id: string): string {
  const seen = new Set<string>()
  let cur = id
  while (parentOf.has(cur) && !seen.has(cur)) {
    seen.add(cur)
    cur = parentOf.get(cur)!
  }
  if (!parentOf.has(cur)) return cur
  let least = cur
  for (let k = parentOf.get(cur)!; k !== cur; k = parentOf.get(k)!) if (k < least) least = k
  return least
}

/** `conn` is read per call: a lazily opened profile's store swaps connections when its first write creates state.db. */
function repo(conn: () => Database.Database) {
  return {
    session(sessionId: string): CostSession | undefined {
      return conn()
        .prepare<unknown[], CostSession>(`SELECT ${SESSION_SELECT} FROM sessions WHERE id = ?`)
        .get(sessionId)
    },
    /** A parent's subagent runs (sql.ts isDelegateSql, as the list and the session page read them). */
    delegateChildren(parentSessionId: string): CostSession[] {
      return conn()
        .prepare<unknown[], CostSession>(
          `SELECT ${SESSION_SELECT} FROM sessions s WHERE s.parent_session_id = ? AND ${isDelegateSql('s')}`
        )
        .all(parentSessionId)
    },
    /**
     * The sessions a cost summary since `since` reports at the top level: those active since then that are not a
     * subagent run under an existing parent, plus the top of the parent chain of every run active since then, however
     * old that top is — a run's cost counts under its parent, a run of a run (upstream's max_spawn_depth ≥ 2) under
     * its parent's parent, and so on up. A run detached by a prune (parent gone, marker kept) is its own top. Parent
     * links can loop in real homes: a loop of runs with no top is reported once, under its smallest id.
     */
    ownersActiveSince(since: number): CostSession[] {
      const db = conn()
      const activeIds = db
        .prepare<unknown[], SessionId>(
          `SELECT s.id FROM sessions s
           WHERE COALESCE(s.last_activity_at, s.started_at) >= @since OR s.started_at >= @since`
        )
        .pluck()
        .all({ since })
      const links = db
        .prepare<unknown[], { id: SessionId; parentId: SessionId }>(
          `SELECT s.id AS id, s.parent_session_id AS parentId FROM sessions s
           WHERE s.parent_session_id IS NOT NULL AND ${isDelegateSql('s')}
             AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id)`
        )
        .all()
      const parentOf = new Map(links.map((l) => [l.id, l.parentId]))
      const owners = new Set<string>()
      for (const id of activeIds) owners.add(topOf(parentOf, id))
      return db
        .prepare<unknown[], CostSession>(
          `SELECT ${SESSION_SELECT} FROM sessions WHERE id IN (SELECT value FROM json_each(?))`
        )
        .all(JSON.stringify([...owners]))
    },
    /** Per-route usage rows, of one session or of the whole store. */
    modelRows(sessionId?: string): ModelUsageRecord[] {
      return conn()
        .prepare<unknown[], ModelUsageRecord>(
          `SELECT ${MODEL_SELECT} FROM session_model_usage
           ${sessionId === undefined ? '' : 'WHERE session_id = ?'} ORDER BY session_id, model`
        )
        .all(...(sessionId === undefined ? [] : [sessionId]))
    },
    /**
     * Per-day usage rows of one session or of the whole store (tokens and upstream's cost per local day). The
     * table has no foreign key: upstream's own delete/prune leaves a deleted session's rows, which count for nobody.
     */
    dailyRows(sessionId?: string): DailyUsageRecord[] {
      return conn()
        .prepare<unknown[], DailyUsageRecord>(
          `SELECT ${DAILY_SELECT} FROM session_daily_usage
           WHERE ${sessionId === undefined ? 'session_id IN (SELECT id FROM sessions)' : 'session_id = ?'}
           ORDER BY session_id, day`
        )
        .all(...(sessionId === undefined ? [] : [sessionId]))
    }
  }
}

export type CostRepo = ReturnType<typeof repo>

const cache = new WeakMap<SessionStore, CostRepo>()

/** Typed access to the cost-relevant rows of one store. */
export function costRepo(store: SessionStore): CostRepo {
  let r = cache.get(store)
  if (!r) cache.set(store, (r = repo(() => sqliteOf(store))))
  return r
}
