/**
 * The one money rule behind every cost the UI shows (issue 14: "Costs total $6.39 vs by-model total $6.40").
 *
 * A session's spend is cut into pieces — one per usage route (model/endpoint) of its own, one per delegated
 * child (the ledger row, or the child session's own pieces when the ledger has no price or no row) — each in
 * integer micro-dollars, and each piece is split over the local days it was used on (largest remainder, so
 * the day shares add up to the piece exactly). Totals, by-model, by-day, top sessions, the session page and the
 * Subagents page all sum these same integers, so they agree to the micro-dollar whatever they are grouped by.
 * A price override (Settings → Prices) prices a piece upstream left unpriced; it is flagged `custom`.
 */
import type { Money, PriceOverride, Tokens } from '@shared/contract'
import { isUnpricedStatus, moneyFromColumns, moneyFromLedger, toMicros, type Micros } from '@shared/contract/money'
import { ZERO_TOKENS } from '@shared/contract/tokens'
import type { SessionStore } from '../store'
import { spreadOverDays, type DailyRow, type Draft, type Piece, type Slice } from './days'
import { loadChildUsageAttributions } from './ledger'
import { overrideFor, priceTokens } from './price-overrides'

type CostRepo = ReturnType<SessionStore['costRepo']>
/** A session's cost columns, a usage route, as the store's cost repository returns them (camelCase). */
export type CostSessionRecord = NonNullable<ReturnType<CostRepo['session']>>
type ModelRecord = ReturnType<CostRepo['modelRows']>[number]
/** The usage columns a session row, a route row and a day row share. */
type UsageColumns = Pick<
  CostSessionRecord,
  'apiCallCount' | 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens'
>

export const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
// Upstream homes may hold anything in a numeric column: n() reads a non-number as 0, whatever the declared type.
export const tokensOf = (r: Omit<UsageColumns, 'apiCallCount'>): Tokens => ({
  input: n(r.inputTokens),
  output: n(r.outputTokens),
  cacheRead: n(r.cacheReadTokens),
  cacheWrite: n(r.cacheWriteTokens),
  reasoning: n(r.reasoningTokens)
})
export const used = (r: UsageColumns) =>
  n(r.apiCallCount) > 0 || n(r.inputTokens) + n(r.outputTokens) + n(r.cacheReadTokens) + n(r.cacheWriteTokens) > 0
export const ownMoney = (r: CostSessionRecord) =>
  moneyFromColumns(r.estimatedCostUsd, r.actualCostUsd, r.costStatus, used(r))

export const dayOf = (epoch: number) => {
  const d = new Date(epoch * 1000)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

export type { Piece, Slice }

/** A slice in micro-dollars, carrying its piece's status. */
export const sliceMoney = (p: Piece, s: Slice): Micros => ({
  ...p.money,
  micros: p.money.micros === null ? null : s.micros
})

/** Where a store's usage rows come from: prefetched for a summary, queried per session for one session. */
export interface PieceSource {
  modelRows(sessionId: string): ModelRecord[]
  dailyRows(sessionId: string): DailyRow[]
  session(sessionId: string): CostSessionRecord | undefined
}

export function querySource(store: SessionStore): PieceSource {
  const repo = store.costRepo()
  return {
    modelRows: (id) => repo.modelRows(id),
    dailyRows: (id) => repo.dailyRows(id),
    session: (id) => repo.session(id)
  }
}

/** Every usage row of a store read once (the Costs page reads many sessions). */
export function prefetchedSource(store: SessionStore): PieceSource & { allDaily: DailyRow[] } {
  const repo = store.costRepo()
  const group = <T extends { sessionId: unknown }>(rows: T[]) => {
    const m = new Map<string, T[]>()
    for (const r of rows) {
      const k = String(r.sessionId)
      const list = m.get(k)
      if (list) list.push(r)
      else m.set(k, [r])
    }
    return m
  }
  const models = group(repo.modelRows())
  const allDaily = repo.dailyRows()
  const daily = group(allDaily)
  return {
    allDaily,
    modelRows: (id) => models.get(id) ?? [],
    dailyRows: (id) => daily.get(id) ?? [],
    session: (id) => repo.session(id)
  }
}

/** session_model_usage stores 0 for unpriced calls (upstream's `unknown`), so the status column decides. */
export function modelMoney(r: ModelRecord): Money {
  const est = n(r.estimatedCostUsd)
  const act = n(r.actualCostUsd)
  const usd = est + act
  if (isUnpricedStatus(r.costStatus)) {
    if (!used(r)) return { usd: 0, status: 'none', complete: true }
    return usd > 0 ? { usd, status: 'partial', complete: false } : { usd: null, status: 'unpriced', complete: false }
  }
  if (r.costStatus === 'partial') return { usd, status: 'partial', complete: false }
  return { usd, status: act > 0 && est === 0 ? 'billed' : 'estimated', complete: true }
}

/** A user price for usage upstream left unpriced: dollars, or null when no override matches. */
export function customUsd(
  overrides: readonly PriceOverride[],
  model: string,
  baseUrl: unknown,
  t: Tokens
): number | null {
  const o = overrideFor(overrides, model, typeof baseUrl === 'string' ? baseUrl : '')
  return o ? priceTokens(o, t) : null
}

/** Model rows may not cover a session's whole recorded cost (older rows): a gap above this shows as its own piece. */
const GAP_MICROS = 100

/** A session's own spend as pieces: one per usage route, or one from its cost columns when it has none. */
export function ownPieces(src: PieceSource, r: CostSessionRecord, overrides: readonly PriceOverride[]): Piece[] {
  const id = String(r.id)
  const rows = src.modelRows(id)
  const drafts: Draft[] = []
  if (!rows.length) {
    const cols = ownMoney(r)
    if (cols.status === 'none') return []
    const model = typeof r.model === 'string' && r.model ? r.model : 'unknown model'
    const usd = cols.status === 'unpriced' ? customUsd(overrides, model, r.billingBaseUrl, tokensOf(r)) : null
    const money = toMicros(usd === null ? cols : { usd, status: 'estimated', complete: true })
    drafts.push({ model, money, custom: usd !== null, tokens: tokensOf(r), span: null, byCost: usd === null })
  }
  for (const m of rows) {
    const upstream = modelMoney(m)
    if (upstream.status === 'none') continue
    const model = String(m.model)
    const t = tokensOf(m)
    const usd = upstream.status === 'unpriced' ? customUsd(overrides, model, m.billingBaseUrl, t) : null
    const money = toMicros(usd === null ? upstream : { usd, status: 'estimated', complete: true })
    const span: [number, number] | null =
      m.firstSeen == null && m.lastSeen == null ? null : [n(m.firstSeen) || -Infinity, n(m.lastSeen) || Infinity]
    drafts.push({ model, money, custom: usd !== null, tokens: t, span, byCost: usd === null })
  }
  if (rows.length) {
    const cols = toMicros(ownMoney(r))
    const routed = drafts.reduce((a, p) => a + (p.custom ? 0 : (p.money.micros ?? 0)), 0)
    if (cols.micros !== null && cols.micros - routed > GAP_MICROS) {
      const status = cols.status === 'billed' ? 'billed' : 'estimated'
      const money: Micros = { micros: cols.micros - routed, status, complete: true }
      drafts.push({ model: 'unattributed', money, custom: false, tokens: ZERO_TOKENS(), span: null, byCost: true })
    }
  }
  return spreadOverDays(drafts, src.dailyRows(id), dayOf(n(r.startedAt)))
}

export interface ChildPieces {
  childSessionId: string
  parentTurnId: string
  /** Ledger status; 'unledgered' for a delegate child the ledger does not know. */
  status: string | null
  apiCalls: number
  tokens: Tokens
  createdAt: number
  pieces: Piece[]
}

/**
 * A parent's children: the ledger rows (at the ledger's price — what the parent was billed), plus any delegate
 * child session the ledger does not know at that session's own cost, so a child's spend is never dropped. A ledger
 * row with no price falls back to the child session's own pieces, where a custom price can reach it.
 *
 * A child's pieces are its whole cost to the parent: its own run(s), then its own children's, down every level
 * (upstream's max_spawn_depth ≥ 2). A ledger row is the cost of the child's own run (seed 004: the writer prices the
 * child's own calls), so a grandchild is added from the child's ledger and never counted inside the child's row
 * again; a child with several rows (follow-ups) has its children added once, with its first row. `visited` holds the
 * sessions already counted in this tree (the parent first), so a parent link that loops back ends the walk.
 */
export function childPieces(
  store: SessionStore,
  src: PieceSource,
  parentId: string,
  overrides: readonly PriceOverride[],
  visited: Set<string> = new Set([parentId])
): ChildPieces[] {
  const out: ChildPieces[] = []
  const ledger = loadChildUsageAttributions(store, parentId).filter(
    (a) => !a.childSessionId || !visited.has(a.childSessionId)
  )
  const known = new Set(ledger.map((a) => a.childSessionId))
  const unledgered = store
    .costRepo()
    .delegateChildren(parentId)
    .filter((r) => !known.has(String(r.id)) && !visited.has(String(r.id)))
  for (const id of known) if (id) visited.add(id)
  for (const r of unledgered) visited.add(String(r.id))
  /** The child's own children, down every level, once per child session. */
  const expanded = new Set<string>()
  const below = (childId: string): Piece[] => {
    if (!childId || expanded.has(childId)) return []
    expanded.add(childId)
    return childPieces(store, src, childId, overrides, visited).flatMap((c) => c.pieces)
  }
  for (const a of ledger) {
    const lt = a.usage.tokens && typeof a.usage.tokens === 'object' ? a.usage.tokens : {}
    const tokens = { ...ZERO_TOKENS(), input: n(lt.input), output: n(lt.output) }
    const apiCalls = Math.trunc(n(a.usage.api_calls))
    const money = toMicros(moneyFromLedger(a.usage.cost_usd, apiCalls > 0 || tokens.input + tokens.output > 0))
    const child = a.childSessionId ? src.session(a.childSessionId) : undefined
    const base = {
      childSessionId: a.childSessionId,
      parentTurnId: a.parentTurnId,
      status: typeof a.usage.status === 'string' ? a.usage.status : null,
      apiCalls,
      tokens,
      createdAt: a.createdAt
    }
    if (money.status === 'unpriced' && child && overrides.length) {
      const own = ownPieces(src, child, overrides)
      if (own.some((p) => p.custom)) {
        out.push({ ...base, pieces: [...own, ...below(a.childSessionId)] })
        continue
      }
    }
    if (money.status === 'none') {
      out.push({ ...base, pieces: below(a.childSessionId) })
      continue
    }
    const model =
      typeof a.usage.model === 'string' && a.usage.model
        ? a.usage.model
        : typeof child?.model === 'string' && child.model
          ? child.model
          : 'unknown model'
    const ownRun = spreadOverDays(
      [{ model, money, custom: false, tokens, span: null, byCost: true }],
      a.childSessionId ? src.dailyRows(a.childSessionId) : [],
      dayOf(a.createdAt)
    )
    out.push({ ...base, pieces: [...ownRun, ...below(a.childSessionId)] })
  }
  for (const r of unledgered) {
    const id = String(r.id)
    const pieces = [...(used(r) ? ownPieces(src, r, overrides) : []), ...below(id)]
    if (!pieces.length) continue
    out.push({
      childSessionId: id,
      parentTurnId: '',
      status: 'unledgered',
      apiCalls: Math.trunc(n(r.apiCallCount)),
      tokens: tokensOf(r),
      createdAt: n(r.startedAt),
      pieces
    })
  }
  return out
}
