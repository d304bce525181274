/**
 * Usage and cost (hermes-spec §1.9, ARCHITECTURE invariant 5): delta-mode counters on the session row plus
 * additive per-route (`session_model_usage`) and per-day rows. Unpriced usage never becomes $0: the
 * session's cost stays NULL with cost_status 'unpriced', or turns 'partial' once priced and unpriced mix.
 */
import type Database from 'better-sqlite3'
import { stmt } from './stmt-cache'
import type { UsageReport } from './types'
import { invalid, notFound } from './errors'
import { num, numOrNull, nowSeconds } from './util'

function validate(u: UsageReport): void {
  if (!u || typeof u !== 'object') throw invalid('usage report must be an object', 'usage')
  if (typeof u.model !== 'string' || u.model === '') throw invalid('usage.model is required', 'usage.model')
  for (const k of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens', 'apiCalls'] as const) {
    if (!Number.isFinite(u[k]) || u[k] < 0) throw invalid(`usage.${k} must be a non-negative number`, `usage.${k}`)
  }
  if (u.costUsd !== null && (!Number.isFinite(u.costUsd) || u.costUsd < 0)) throw invalid('usage.costUsd must be null or >= 0', 'usage.costUsd')
}

export function recordUsageRows(db: Database.Database, sessionId: string, u: UsageReport, at = nowSeconds(), day?: string): void {
  validate(u)
  const s = stmt(db, `SELECT estimated_cost_usd, actual_cost_usd, cost_status, api_call_count, input_tokens, output_tokens
    FROM sessions WHERE id = ?`).get(sessionId) as Record<string, unknown> | undefined
  if (!s) throw notFound(sessionId)
  const priced = u.costUsd !== null && u.costStatus !== 'unpriced'
  const billed = priced && u.costStatus === 'billed'
  const hadUsage = num(s.api_call_count) > 0 || num(s.input_tokens) > 0 || num(s.output_tokens) > 0
  const hadPriced = numOrNull(s.estimated_cost_usd) !== null || numOrNull(s.actual_cost_usd) !== null
  const hadUnpriced = s.cost_status === 'unpriced' || s.cost_status === 'partial' || (hadUsage && !hadPriced)
  const status = priced ? (hadUnpriced ? 'partial' : u.costStatus) : hadPriced ? 'partial' : 'unpriced'
  const costSource = billed ? 'provider' : priced ? 'pricing' : 'none'

  stmt(db, `UPDATE sessions SET
      input_tokens = COALESCE(input_tokens, 0) + @in, output_tokens = COALESCE(output_tokens, 0) + @out,
      cache_read_tokens = COALESCE(cache_read_tokens, 0) + @cr, cache_write_tokens = COALESCE(cache_write_tokens, 0) + @cw,
      reasoning_tokens = COALESCE(reasoning_tokens, 0) + @rt, api_call_count = COALESCE(api_call_count, 0) + @calls,
      estimated_cost_usd = CASE WHEN @est IS NULL THEN estimated_cost_usd ELSE COALESCE(estimated_cost_usd, 0) + @est END,
      actual_cost_usd = CASE WHEN @act IS NULL THEN actual_cost_usd ELSE COALESCE(actual_cost_usd, 0) + @act END,
      cost_status = @status, cost_source = @source, pricing_version = COALESCE(@pv, pricing_version),
      model = COALESCE(model, @model), billing_provider = COALESCE(billing_provider, @provider),
      billing_base_url = COALESCE(billing_base_url, @base), billing_mode = COALESCE(billing_mode, @mode)
    WHERE id = @id`).run({
    id: sessionId, in: u.inputTokens, out: u.outputTokens, cr: u.cacheReadTokens, cw: u.cacheWriteTokens, rt: u.reasoningTokens,
    calls: u.apiCalls, est: priced && !billed ? u.costUsd : null, act: billed ? u.costUsd : null, status, source: costSource,
    pv: u.pricingVersion ?? null, model: u.model, provider: u.provider || null, base: u.baseUrl || null, mode: u.billingMode ?? null
  })

  const est = priced && !billed ? u.costUsd! : 0
  const act = billed ? u.costUsd! : 0
  stmt(db, `INSERT INTO session_model_usage (session_id, model, billing_provider, billing_base_url, billing_mode, task,
      api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
      estimated_cost_usd, actual_cost_usd, cost_status, cost_source, first_seen, last_seen)
    VALUES (@id, @model, @provider, @base, @mode, @task, @calls, @in, @out, @cr, @cw, @rt, @est, @act, @status, @source, @at, @at)
    ON CONFLICT(session_id, model, billing_provider, billing_base_url, billing_mode, task) DO UPDATE SET
      api_call_count = api_call_count + excluded.api_call_count, input_tokens = input_tokens + excluded.input_tokens,
      output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
      estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd, actual_cost_usd = actual_cost_usd + excluded.actual_cost_usd,
      cost_status = CASE WHEN cost_status IS NULL OR cost_status = excluded.cost_status THEN excluded.cost_status
        WHEN cost_status IN ('unpriced', 'partial') OR excluded.cost_status = 'unpriced' THEN 'partial' ELSE excluded.cost_status END,
      cost_source = excluded.cost_source, last_seen = excluded.last_seen`).run({
    id: sessionId, model: u.model, provider: u.provider ?? '', base: u.baseUrl ?? '', mode: u.billingMode ?? '', task: u.task ?? '',
    calls: u.apiCalls, in: u.inputTokens, out: u.outputTokens, cr: u.cacheReadTokens, cw: u.cacheWriteTokens, rt: u.reasoningTokens,
    est, act, status: priced ? u.costStatus : 'unpriced', source: costSource, at
  })

  const dayExpr = day === undefined ? "date('now','localtime')" : '@day'
  stmt(db, `INSERT INTO session_daily_usage (session_id, day, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      reasoning_tokens, estimated_cost_usd, actual_cost_usd, api_call_count)
    VALUES (@id, ${dayExpr}, @in, @out, @cr, @cw, @rt, @est, @act, @calls)
    ON CONFLICT(session_id, day) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
      output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
      estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd, actual_cost_usd = actual_cost_usd + excluded.actual_cost_usd,
      api_call_count = api_call_count + excluded.api_call_count`).run({
    id: sessionId, ...(day === undefined ? {} : { day }), in: u.inputTokens, out: u.outputTokens, cr: u.cacheReadTokens,
    cw: u.cacheWriteTokens, rt: u.reasoningTokens, est, act, calls: u.apiCalls
  })
}

/** Contract Money from a row's cost columns: the shared money rule, so every view reads a session the same. */
export { moneyFromColumns as moneyOf } from '@shared/contract/money'
