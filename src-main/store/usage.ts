/**
 * Usage and cost (hermes-spec §1.9, ARCHITECTURE invariant 5): delta-mode counters on the session row plus
 * additive per-route (`session_model_usage`) and per-day rows. Unpriced usage never reads as $0: the session's
 * estimate stays what it was (0.0 from the first call, as upstream writes it) with upstream's cost_status for it,
 * 'unknown' (older Caduceus wrote 'unpriced' and left the estimate NULL; all read the same), or turns 'partial' once
 * priced and unpriced mix. cost_source and billing_mode are upstream's values for the same call
 * (test/fixtures/upstream/usage-values); an older Caduceus wrote 'pricing'/'provider' and the API mode, which every
 * reader here ignores (cost_source) or shows as a route's endpoint detail (billing_mode).
 */
import type Database from 'better-sqlite3'
import { eq } from 'drizzle-orm'
import { stmt } from './stmt-cache'
import { sessionDailyUsage, sessionModelUsage, sessions } from './schema'
import { txDb, txOrm, type WriteTx } from './write-tx'
import type { UsageReport } from './types'
import { invalid, notFound } from './errors'
import { num, numOrNull, nowSeconds } from './util'
import type { HomeShape } from './shape'
import { cadName, existingColumns } from './reconcile'
import { isUnpricedStatus } from '@shared/contract/money'

function validate(u: UsageReport): void {
  if (!u || typeof u !== 'object') throw invalid('usage report must be an object', 'usage')
  if (typeof u.model !== 'string' || u.model === '') throw invalid('usage.model is required', 'usage.model')
  for (const k of [
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'reasoningTokens',
    'apiCalls'
  ] as const) {
    if (!Number.isFinite(u[k]) || u[k] < 0) throw invalid(`usage.${k} must be a non-negative number`, `usage.${k}`)
  }
  if (u.costUsd !== null && (!Number.isFinite(u.costUsd) || u.costUsd < 0))
    throw invalid('usage.costUsd must be null or >= 0', 'usage.costUsd')
}

export function recordUsageRows(
  tx: WriteTx,
  shape: HomeShape,
  sessionId: string,
  u: UsageReport,
  at = nowSeconds(),
  day?: string
): void {
  validate(u)
  const db = txDb(tx)
  const s = txOrm(tx)
    .select({
      estimatedCostUsd: sessions.estimated_cost_usd,
      actualCostUsd: sessions.actual_cost_usd,
      costStatus: sessions.cost_status,
      apiCallCount: sessions.api_call_count,
      inputTokens: sessions.input_tokens,
      outputTokens: sessions.output_tokens,
      model: sessions.model,
      billingProvider: sessions.billing_provider,
      billingBaseUrl: sessions.billing_base_url,
      billingMode: sessions.billing_mode
    })
    .from(sessions)
    .where(eq(sessions.id, sessionId))
    .get()
  if (!s) throw notFound(sessionId)
  const priced = u.costUsd !== null && u.costStatus !== 'unpriced'
  const billed = priced && u.costStatus === 'billed'
  const hadUsage = num(s.apiCallCount) > 0 || num(s.inputTokens) > 0 || num(s.outputTokens) > 0
  // An amount beside an unpriced status is upstream's 0.0 for "no price" (or what priced calls before it cost): only
  // more than 0 says something was priced.
  const est0 = numOrNull(s.estimatedCostUsd)
  const act0 = numOrNull(s.actualCostUsd)
  const hadPriced =
    (est0 !== null || act0 !== null) && (!isUnpricedStatus(s.costStatus) || (est0 ?? 0) + (act0 ?? 0) > 0)
  const hadUnpriced = isUnpricedStatus(s.costStatus) || s.costStatus === 'partial' || (hadUsage && !hadPriced)
  // upstream's words (agent/usage_pricing.py CostStatus, CostSource): a provider-reported cost is 'actual', an
  // estimate names the table it came from; 'partial' (priced and unpriced calls mixed) is Caduceus's own
  const callStatus = billed ? 'actual' : priced ? 'estimated' : 'unknown'
  const status = priced ? (hadUnpriced ? 'partial' : callStatus) : hadPriced ? 'partial' : 'unknown'
  const costSource = u.costSource ?? (billed ? 'provider_cost_api' : priced ? 'official_docs_snapshot' : 'none')
  // Upstream's first accounted call names the session's route when it differs from the one the row was created with
  // (a first turn failed before any call and the model was changed before the retry, or a fallback answered); after
  // that the row keeps its first route.
  const used = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.reasoningTokens + u.apiCalls
  if (
    num(s.apiCallCount) === 0 &&
    used > 0 &&
    u.provider &&
    (s.model !== u.model || s.billingProvider !== u.provider)
  ) {
    stmt(
      db,
      `UPDATE sessions SET model = @model, billing_provider = @provider, billing_base_url = @base, billing_mode = @mode
        WHERE id = @id`
    ).run({ id: sessionId, model: u.model, provider: u.provider, base: u.baseUrl || null, mode: u.billingMode || null })
    Object.assign(s, { model: u.model, billingProvider: u.provider, billingBaseUrl: u.baseUrl || null })
    s.billingMode = u.billingMode || null
  }

  // The call's counters, added to the session row, its route row and its day row alike (money differs below).
  const calls = {
    api_call_count: u.apiCalls,
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_tokens: u.cacheReadTokens,
    cache_write_tokens: u.cacheWriteTokens,
    reasoning_tokens: u.reasoningTokens
  }
  const sessionCounters: Record<UsageCounter, number | null> = {
    ...calls,
    // Unpriced usage adds 0.0, as upstream's update_token_counts does (COALESCE(?, 0)): the column reads 0.0 beside
    // cost_status 'unknown', which every reader (upstream's, Caduceus's moneyFromColumns) takes as "no price"
    estimated_cost_usd: priced && !billed ? u.costUsd : billed ? null : 0,
    actual_cost_usd: billed ? u.costUsd : null
  }
  stmt(
    db,
    `UPDATE sessions SET ${USAGE_COUNTERS.map(addedTo).join(', ')},
      cost_status = @status, cost_source = @source, pricing_version = COALESCE(@pv, pricing_version),
      model = COALESCE(model, @model), billing_provider = COALESCE(billing_provider, @provider),
      billing_base_url = COALESCE(billing_base_url, @base), billing_mode = COALESCE(billing_mode, @mode)
    WHERE id = @id`
  ).run({
    id: sessionId,
    ...sessionCounters,
    status,
    source: costSource,
    pv: u.pricingVersion ?? null,
    model: u.model,
    provider: u.provider || null,
    base: u.baseUrl || null,
    mode: u.billingMode || null
  })

  const est = priced && !billed ? u.costUsd! : 0
  const act = billed ? u.costUsd! : 0
  const routeStatus = callStatus
  // A route names what the call did not from the session row, as upstream's _record_model_usage does: a session an
  // older Caduceus created holds billing_mode 'chat_completions', and its later calls stay on that route.
  const routeValues: typeof sessionModelUsage.$inferInsert = {
    session_id: sessionId,
    model: u.model,
    billing_provider: u.provider || s.billingProvider || '',
    billing_base_url: u.baseUrl || s.billingBaseUrl || '',
    billing_mode: u.billingMode || s.billingMode || '',
    task: u.task ?? '',
    ...calls,
    estimated_cost_usd: est,
    actual_cost_usd: act,
    cost_status: routeStatus,
    cost_source: costSource,
    first_seen: at,
    last_seen: at
  }
  const route = usageTarget(db, shape, 'session_model_usage')
  addOrInsert(db, route.table, route.key, route.columns, routeValues, {
    cost_status: `CASE WHEN cost_status IS NULL OR cost_status = @cost_status
          OR (cost_status IN ('unknown', 'unpriced') AND @cost_status = 'unknown') THEN @cost_status
        WHEN cost_status IN ('unknown', 'unpriced', 'partial') OR @cost_status = 'unknown' THEN 'partial' ELSE @cost_status END`,
    cost_source: '@cost_source',
    last_seen: '@last_seen'
  })

  const dayValue = day ?? stmt<{ d: string }>(db, "SELECT date('now','localtime') AS d").get()!.d
  const daily = usageTarget(db, shape, 'session_daily_usage')
  addOrInsert(
    db,
    daily.table,
    daily.key,
    daily.columns,
    dailyValues({
      session_id: sessionId,
      day: dayValue,
      ...calls,
      estimated_cost_usd: est,
      actual_cost_usd: act
    }),
    {}
  )
}

/** A route row as it is moved (usage.ts moveUsageRows). */
type RouteRow = Pick<
  typeof sessionModelUsage.$inferSelect,
  | 'model'
  | 'billing_provider'
  | 'billing_base_url'
  | 'billing_mode'
  | 'task'
  | 'api_call_count'
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_read_tokens'
  | 'cache_write_tokens'
  | 'reasoning_tokens'
  | 'estimated_cost_usd'
  | 'actual_cost_usd'
  | 'cost_status'
  | 'cost_source'
>

/**
 * Records session `from`'s usage on session `into`, route by route (its counters, a route row and today's day row), as
 * routes of `task` where a row names none (a compression or title call inside it keeps its own). Money stays what
 * it was: a billed route is billed there, an estimated one estimated, an unpriced one unpriced, and a route that mixed
 * both leaves `into` partial. The caller deletes `from` in the same transaction. Returns how many routes moved.
 */
export function moveUsageRows(tx: WriteTx, shape: HomeShape, from: string, into: string, task: string): number {
  const db = txDb(tx)
  const route = usageTarget(db, shape, 'session_model_usage')
  const rows = stmt<RouteRow>(
    db,
    `SELECT model, billing_provider, billing_base_url, billing_mode, ${route.columns.has('task') ? 'task' : "'' AS task"},
       ${USAGE_COUNTERS.join(', ')}, cost_status, cost_source FROM ${route.table} WHERE session_id = ?`
  ).all(from)
  for (const r of rows) {
    const billed = num(r.actual_cost_usd) > 0
    const unpriced =
      isUnpricedStatus(r.cost_status) || (r.cost_status === null && !billed && num(r.estimated_cost_usd) === 0)
    const report: UsageReport = {
      model: r.model,
      provider: r.billing_provider,
      baseUrl: r.billing_base_url,
      billingMode: r.billing_mode,
      task: r.task || task,
      inputTokens: num(r.input_tokens),
      outputTokens: num(r.output_tokens),
      cacheReadTokens: num(r.cache_read_tokens),
      cacheWriteTokens: num(r.cache_write_tokens),
      reasoningTokens: num(r.reasoning_tokens),
      apiCalls: num(r.api_call_count),
      costUsd: unpriced ? null : billed ? num(r.actual_cost_usd) : num(r.estimated_cost_usd),
      costStatus: unpriced ? 'unpriced' : billed ? 'billed' : 'estimated',
      // the price's own source travels with it; an older Caduceus's words ('pricing', 'provider') are left behind
      ...(!unpriced && r.cost_source && !OLD_SOURCES.has(r.cost_source) ? { costSource: r.cost_source } : {})
    }
    recordUsageRows(tx, shape, into, report)
    // a route that was partly unpriced stays so: an unpriced call of no tokens marks it (and the session) partial
    if (r.cost_status === 'partial')
      recordUsageRows(tx, shape, into, {
        ...report,
        ...{ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
        apiCalls: 0,
        costUsd: null,
        costStatus: 'unpriced'
      })
  }
  return rows.length
}

/** The cost_source values Caduceus wrote before it wrote upstream's (usage_pricing.py CostSource). */
const OLD_SOURCES = new Set(['pricing', 'provider'])

/** Column names checked against the table definition; the values then go in by name (shape-dependent SQL). */
const dailyValues = (v: typeof sessionDailyUsage.$inferInsert) => v
/** Named bind values by column (checked against the table definition by the caller, `$inferInsert`). */
type BindValues = Record<string, unknown>
/** The session row's additive usage counters (also the per-route and per-day tables' value columns). */
export const USAGE_COUNTERS = [
  'api_call_count',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated_cost_usd',
  'actual_cost_usd'
] as const satisfies ReadonlyArray<keyof typeof sessions.$inferSelect>
type UsageCounter = (typeof USAGE_COUNTERS)[number]
const COUNTERS = new Set<string>(USAGE_COUNTERS)
/**
 * A counter's accumulation, one rule for the session row and its route and day rows: the value is added to what the
 * row holds (NULL there counts as 0), and a NULL value adds nothing (a call with no billed cost leaves the amount).
 */
const addedTo = (c: string) => `${c} = CASE WHEN @${c} IS NULL THEN ${c} ELSE COALESCE(${c}, 0) + @${c} END`
const ROUTE_KEY = ['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task']
const DAILY_KEY = ['session_id', 'day']

/**
 * Where a usage row goes in this home: the home's own table with ITS primary key (a v21 route key has five
 * columns, v30 six), or a `cad_` stand-in when an older home has no such table (reconcile made it).
 */
function usageTarget(
  db: Database.Database,
  shape: HomeShape,
  table: 'session_model_usage' | 'session_daily_usage'
): { table: string; key: string[]; columns: Set<string> } {
  const fallbackKey = table === 'session_model_usage' ? ROUTE_KEY : DAILY_KEY
  const name = shape.tables.has(table) ? table : cadName(table)
  const columns = shape.columns.get(name) ?? existingColumns(db, name)
  const key =
    (name === table ? (table === 'session_model_usage' ? shape.usageKey : shape.dailyKey) : null) ??
    fallbackKey.filter((c) => columns.has(c))
  return { table: name, key, columns }
}

/**
 * Shape-independent additive upsert: UPDATE the row with this key (counters added), else INSERT. Runs inside
 * the caller's BEGIN IMMEDIATE transaction, so no other writer can slip in between. Columns the home lacks
 * are left out; key columns the home does not have simply merge into the home's coarser row.
 */
function addOrInsert(
  db: Database.Database,
  table: string,
  key: string[],
  columns: Set<string>,
  values: BindValues,
  replace: Record<string, string>
): void {
  const present = Object.keys(values).filter((c) => columns.has(c))
  const where = key.map((c) => `${c} IS @${c}`).join(' AND ')
  const sets = present
    .filter((c) => !key.includes(c))
    .flatMap((c) => (COUNTERS.has(c) ? [addedTo(c)] : replace[c] ? [`${c} = ${replace[c]}`] : []))
  const params = Object.fromEntries(present.map((c) => [c, values[c]]))
  const changed = sets.length
    ? stmt(db, `UPDATE ${table} SET ${sets.join(', ')} WHERE ${where}`).run(params).changes
    : stmt<{ n: number }>(db, `SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(params)!.n
  if (changed > 0) return
  stmt(db, `INSERT INTO ${table} (${present.join(', ')}) VALUES (${present.map((c) => `@${c}`).join(', ')})`).run(
    params
  )
}

/** Contract Money from a row's cost columns: the shared money rule, so every view reads a session the same. */
export { moneyFromColumns as moneyOf } from '@shared/contract/money'
