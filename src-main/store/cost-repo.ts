/**
 * SQL behind the cost read models (`costs.session`, `costs.summary`): session rows and the per-model and per-day
 * usage tables. Rows come back raw (upstream column names); the money rules live with the read models.
 */
import type Database from 'better-sqlite3'
import { sqliteOf, type SessionStore } from './session-store'

type Row = Record<string, unknown>

const SESSION_COLS = `id, title, source, model_config, started_at, last_activity_at, api_call_count, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd, cost_status`

/** `conn` is read per call: a lazily opened profile's store swaps connections when its first write creates state.db. */
function repo(conn: () => Database.Database) {
  return {
    session(sessionId: string): Row | undefined {
      return conn().prepare(`SELECT ${SESSION_COLS} FROM sessions WHERE id = ?`).get(sessionId) as Row | undefined
    },
    /** Delegate child sessions of a parent (by source or by `_delegate_from` in model_config). */
    delegateChildren(parentSessionId: string): Row[] {
      return conn()
        .prepare(
          `SELECT ${SESSION_COLS} FROM sessions WHERE parent_session_id = ? AND (source IN ('delegate', 'subagent')
         OR (json_valid(model_config) AND json_extract(model_config, '$._delegate_from') IS NOT NULL))`
        )
        .all(parentSessionId) as Row[]
    },
    activeSince(since: number): Row[] {
      return conn()
        .prepare(
          `SELECT ${SESSION_COLS} FROM sessions WHERE COALESCE(last_activity_at, started_at) >= ? OR started_at >= ?`
        )
        .all(since, since) as Row[]
    },
    perModel(sessionId: string): Row[] {
      return conn()
        .prepare(
          `SELECT model, SUM(api_call_count) AS api_call_count, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
           SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(reasoning_tokens) AS reasoning_tokens,
           SUM(estimated_cost_usd) AS est, SUM(actual_cost_usd) AS act,
           MAX(CASE WHEN cost_status IN ('unpriced', 'partial') THEN 1 ELSE 0 END) AS has_unpriced,
           MIN(CASE WHEN cost_status = 'unpriced' THEN 1 ELSE 0 END) AS all_unpriced
         FROM session_model_usage WHERE session_id = ? GROUP BY model ORDER BY model`
        )
        .all(sessionId) as Row[]
    },
    modelUsage(): Row[] {
      return conn()
        .prepare(
          `SELECT session_id, model, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
           billing_base_url, estimated_cost_usd AS est, actual_cost_usd AS act, CASE WHEN cost_status IN ('unpriced','partial') THEN 1 ELSE 0 END AS has_unpriced,
           CASE WHEN cost_status = 'unpriced' THEN 1 ELSE 0 END AS all_unpriced FROM session_model_usage`
        )
        .all() as Row[]
    },
    dailySince(sinceDay: string): Array<{ session_id: string; day: string; est: number; act: number }> {
      return conn()
        .prepare(
          'SELECT session_id, day, estimated_cost_usd AS est, actual_cost_usd AS act FROM session_daily_usage WHERE day >= ?'
        )
        .all(sinceDay) as Array<{ session_id: string; day: string; est: number; act: number }>
    },
    unpricedSpans(): Array<{ session_id: string; first_seen: number | null; last_seen: number | null }> {
      return conn()
        .prepare(
          "SELECT session_id, first_seen, last_seen FROM session_model_usage WHERE cost_status IN ('unpriced', 'partial')"
        )
        .all() as Array<{ session_id: string; first_seen: number | null; last_seen: number | null }>
    },
    /** A session's own cost and token columns (a child with no ledger row is billed at its own cost). */
    sessionCostColumns(sessionId: string): Row | undefined {
      return conn()
        .prepare(
          `SELECT estimated_cost_usd, actual_cost_usd, cost_status, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, api_call_count FROM sessions WHERE id = ?`
        )
        .get(sessionId) as Row | undefined
    },
    hasModelUsage(sessionId: string): boolean {
      return !!conn().prepare('SELECT 1 FROM session_model_usage WHERE session_id = ? LIMIT 1').get(sessionId)
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
