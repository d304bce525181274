/**
 * SQL behind the cost read models (`costs.session`, `costs.summary`): session rows and the per-model and per-day
 * usage tables. Rows come back raw (upstream column names); the money rules live with the read models.
 */
import type Database from 'better-sqlite3'
import { sqliteOf, type SessionStore } from './session-store'

type Row = Record<string, unknown>

export interface DailyRow {
  session_id: string
  day: string
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_write_tokens: number
  reasoning_tokens: number
  est: number
  act: number
}

const SESSION_COLS = `id, title, source, model, billing_base_url, model_config, started_at, last_activity_at, api_call_count, input_tokens, output_tokens,
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
    /**
     * Per-route usage rows (one per model/endpoint/task), of one session or of the whole store: the atoms every
     * cost total is built from.
     */
    modelRows(sessionId?: string): Row[] {
      return conn()
        .prepare(
          `SELECT session_id, model, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
           reasoning_tokens, billing_provider, billing_base_url, billing_mode, task, estimated_cost_usd AS est, actual_cost_usd AS act, first_seen, last_seen,
           CASE WHEN cost_status IN ('unpriced','partial') THEN 1 ELSE 0 END AS has_unpriced,
           CASE WHEN cost_status = 'unpriced' THEN 1 ELSE 0 END AS all_unpriced FROM session_model_usage
           ${sessionId === undefined ? '' : 'WHERE session_id = ?'} ORDER BY session_id, model`
        )
        .all(...(sessionId === undefined ? [] : [sessionId])) as Row[]
    },
    /** Per-day usage rows of one session or of the whole store (tokens and upstream's cost per local day). */
    dailyRows(sessionId?: string): DailyRow[] {
      return conn()
        .prepare(
          `SELECT session_id, day, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
           estimated_cost_usd AS est, actual_cost_usd AS act FROM session_daily_usage
           ${sessionId === undefined ? '' : 'WHERE session_id = ?'} ORDER BY session_id, day`
        )
        .all(...(sessionId === undefined ? [] : [sessionId])) as DailyRow[]
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
