/**
 * Cost read models for the contract (`costs.session`, `costs.summary`): a session's own spend from its
 * row, its delegated children's spend from the `delegation_child_usage` ledger, and inclusive = both.
 */
import {
  CaduceusError,
  type ChildCost,
  type CostSummary,
  type Money,
  type SessionCost,
  type Tokens
} from '@shared/contract'
import { loadChildUsageAttributions } from './ledger'
import { moneyFromColumns, moneyFromLedger, sumMoney } from '@shared/contract/money'
import { repositories } from '../store'
import type { DelegationDb } from './types'
import { overrideFor, priceTokens } from './price-overrides'
import type { PriceOverride } from '@shared/contract'

export interface ProfileStore {
  profile: string
  store: DelegationDb
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
const tokensOf = (r: Record<string, unknown>): Tokens => ({
  input: n(r.input_tokens),
  output: n(r.output_tokens),
  cacheRead: n(r.cache_read_tokens),
  cacheWrite: n(r.cache_write_tokens),
  reasoning: n(r.reasoning_tokens)
})
const used = (r: Record<string, unknown>) =>
  n(r.api_call_count) > 0 ||
  n(r.input_tokens) + n(r.output_tokens) + n(r.cache_read_tokens) + n(r.cache_write_tokens) > 0
const ownMoney = (r: Record<string, unknown>) =>
  moneyFromColumns(r.estimated_cost_usd, r.actual_cost_usd, r.cost_status, used(r))

/**
 * A parent's children: the ledger rows, plus any delegate child session the ledger does not know (written by
 * a runtime without the ledger, or whose ledger write was lost) at that session's own recorded cost, so a
 * child's spend is never silently dropped from the inclusive total (the under-reporting users complained of).
 */
function childCosts(store: DelegationDb, sessionId: string): ChildCost[] {
  const ledger = ledgerCosts(store, sessionId)
  const known = new Set(ledger.map((c) => c.childSessionId))
  const unledgered = repositories
    .cost(store)
    .delegateChildren(sessionId)
    .filter((r) => !known.has(String(r.id)) && used(r))
    .map((r): ChildCost => ({
      childSessionId: String(r.id),
      parentTurnId: '',
      status: 'unledgered',
      apiCalls: Math.trunc(n(r.api_call_count)),
      cost: ownMoney(r),
      tokens: tokensOf(r),
      createdAt: n(r.started_at)
    }))
  return [...ledger, ...unledgered]
}

function ledgerCosts(store: DelegationDb, sessionId: string): ChildCost[] {
  return loadChildUsageAttributions(store, sessionId).map((a) => {
    const tokens = a.usage.tokens && typeof a.usage.tokens === 'object' ? a.usage.tokens : {}
    const input = n(tokens.input)
    const output = n(tokens.output)
    const apiCalls = Math.trunc(n(a.usage.api_calls))
    return {
      childSessionId: a.childSessionId,
      parentTurnId: a.parentTurnId,
      status: typeof a.usage.status === 'string' ? a.usage.status : null,
      apiCalls,
      cost: moneyFromLedger(a.usage.cost_usd, apiCalls > 0 || input + output > 0),
      tokens: { input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      createdAt: a.createdAt
    }
  })
}

export function sessionCost(store: DelegationDb, profile: string, sessionId: string): SessionCost {
  const row = repositories.cost(store).session(sessionId)
  if (!row) throw new CaduceusError('not_found', `Unknown session: ${sessionId}`, 'sessionId')
  const own = ownMoney(row)
  const children = childCosts(store, sessionId)
  const childrenTotal = sumMoney(children.map((c) => c.cost))
  const perModel = repositories
    .cost(store)
    .perModel(sessionId)
    .map((r) => ({ model: String(r.model), cost: modelMoney(r), tokens: tokensOf(r) }))
  const turns = new Map<string, Money[]>()
  for (const c of children) turns.set(c.parentTurnId, [...(turns.get(c.parentTurnId) ?? []), c.cost])
  return {
    profile,
    sessionId,
    own,
    children,
    childrenTotal,
    inclusive: sumMoney([own, childrenTotal]),
    perModel,
    perTurn: [...turns].map(([turnId, costs]) => ({ turnId, childrenCost: sumMoney(costs) }))
  }
}

/** session_model_usage stores 0 for unpriced calls, so the status column decides. */
function modelMoney(r: Record<string, unknown>): Money {
  const usd = n(r.est) + n(r.act)
  if (n(r.all_unpriced) === 1)
    return used(r) ? { usd: null, status: 'unpriced', complete: false } : { usd: 0, status: 'none', complete: true }
  if (n(r.has_unpriced) === 1) return { usd, status: 'partial', complete: false }
  return { usd, status: n(r.act) > 0 && n(r.est) === 0 ? 'billed' : 'estimated', complete: true }
}

const isDelegate = (r: Record<string, unknown>) => {
  if (r.source === 'delegate' || r.source === 'subagent') return true
  try {
    const mc = typeof r.model_config === 'string' ? JSON.parse(r.model_config) : null
    return !!mc && typeof mc === 'object' && mc._delegate_from != null
  } catch {
    return false
  }
}

const dayOf = (epoch: number) => {
  const d = new Date(epoch * 1000)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

export function costSummary(
  stores: ProfileStore[],
  query: { profile?: string; days?: number },
  now = Date.now() / 1000,
  /** The user's prices for usage upstream left unpriced (applied here, at read time, never written back). */
  overrides: PriceOverride[] = []
): CostSummary {
  const days = Math.min(3650, Math.max(1, Math.trunc(query.days ?? 30)))
  const since = now - days * 86400
  // N days = today and the N-1 days before it.
  const sinceDay = dayOf(now - (days - 1) * 86400)
  const selected = stores.filter((s) => !query.profile || query.profile === 'all' || s.profile === query.profile)
  const profiles: CostSummary['profiles'] = []
  const models = new Map<string, { costs: Money[]; tokens: Tokens; custom: boolean }>()
  const byDay = new Map<string, { day: string; profile: string; usd: number; unpriced: boolean }>()
  const top: CostSummary['topSessions'] = []
  const custom = { usd: 0, models: new Set<string>() }
  for (const { profile, store } of selected) {
    const repo = repositories.cost(store)
    const rows = repo.activeSince(since)
    const owners = rows.filter((r) => !isDelegate(r))
    const ownParts: Money[] = []
    const childParts: Money[] = []
    for (const r of owners) {
      const own = ownMoney(r)
      const children = sumMoney(childCosts(store, String(r.id)).map((c) => c.cost))
      ownParts.push(own)
      childParts.push(children)
      top.push({
        profile,
        sessionId: String(r.id),
        title: (r.title as string | null) ?? null,
        own,
        inclusive: sumMoney([own, children])
      })
    }
    const ownerIds = new Set(owners.map((r) => String(r.id)))
    let customOwn = 0
    let unpricedLeft = false

    const ids = new Set(rows.map((r) => String(r.id)))
    for (const r of repo.modelUsage()) {
      if (!ids.has(String(r.session_id))) continue
      const m = models.get(String(r.model)) ?? {
        costs: [],
        tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
        custom: false
      }
      const t = tokensOf(r)
      const o =
        n(r.all_unpriced) === 1 && used(r)
          ? overrideFor(overrides, String(r.model), String(r.billing_base_url ?? ''))
          : null
      if (o) {
        const usd = priceTokens(o, t)
        m.costs.push({ usd, status: 'estimated', complete: true } satisfies Money)
        m.custom = true
        custom.models.add(String(r.model))
        if (ownerIds.has(String(r.session_id))) {
          customOwn += usd
          custom.usd += usd
        }
      } else {
        m.costs.push(modelMoney(r))
        if (n(r.has_unpriced) === 1 && used(r) && ownerIds.has(String(r.session_id))) unpricedLeft = true
      }
      for (const k of Object.keys(t) as Array<keyof Tokens>) m.tokens[k] += t[k]
      models.set(String(r.model), m)
    }
    const own = withCustom(sumMoney(ownParts), customOwn, unpricedLeft)
    const children = sumMoney(childParts)
    profiles.push({ profile, own, children, inclusive: sumMoney([own, children]), sessions: owners.length })

    const status = new Map(rows.map((r) => [String(r.id), ownMoney(r)]))
    const daily = repo.dailySince(sinceDay)
    const withDaily = new Set(daily.map((d) => d.session_id))
    // A day is flagged unpriced only when an unpriced or partial route was actually used on it.
    const unpricedSpans = new Map<string, Array<[number, number]>>()
    for (const u of repo.unpricedSpans()) {
      const spans = unpricedSpans.get(u.session_id) ?? []
      spans.push([u.first_seen ?? -Infinity, u.last_seen ?? Infinity])
      unpricedSpans.set(u.session_id, spans)
    }
    const unpricedOn = (sessionId: string, day: string) => {
      const spans = unpricedSpans.get(sessionId)
      if (!spans) return !(status.get(sessionId)?.complete ?? true) && !repo.hasModelUsage(sessionId)
      const start = new Date(`${day}T00:00:00`).getTime() / 1000
      return spans.some(([a, b]) => a < start + 86400 && b >= start)
    }
    const add = (day: string, usd: number, unpriced: boolean) => {
      const key = `${profile}\u0000${day}`
      const cur = byDay.get(key) ?? { day, profile, usd: 0, unpriced: false }
      cur.usd += usd
      cur.unpriced ||= unpriced
      byDay.set(key, cur)
    }
    for (const d of daily) add(d.day, n(d.est) + n(d.act), unpricedOn(d.session_id, d.day))
    // Sessions written before per-day rows existed: attribute their whole cost to the day they started.
    for (const r of rows)
      if (!withDaily.has(String(r.id))) {
        const m = ownMoney(r)
        if (m.status !== 'none') add(dayOf(n(r.started_at)), m.usd ?? 0, !m.complete)
      }
  }
  topSessionsSort(top)
  return {
    profiles,
    total: sumMoney(profiles.map((p) => p.inclusive)),
    byModel: [...models]
      .map(([model, m]) => ({
        model,
        cost: sumMoney(m.costs),
        tokens: m.tokens,
        ...(m.custom ? { customPrice: true } : {})
      }))
      .sort((a, b) => (b.cost.usd ?? -1) - (a.cost.usd ?? -1)),
    byDay: [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day) || a.profile.localeCompare(b.profile)),
    topSessions: top.slice(0, 10),
    ...(custom.models.size ? { customPriced: { usd: custom.usd, models: [...custom.models].sort() } } : {})
  }
}

/** A profile's own spend with the custom-priced part added; complete only when no unpriced usage is left. */
function withCustom(own: Money, customUsd: number, unpricedLeft: boolean): Money {
  if (customUsd <= 0) return own
  const usd = (own.usd ?? 0) + customUsd
  return unpricedLeft
    ? { usd, status: 'partial', complete: false }
    : { usd, status: own.status === 'billed' ? 'billed' : 'estimated', complete: true }
}

function topSessionsSort(top: CostSummary['topSessions']): void {
  top.sort((a, b) => (b.inclusive.usd ?? -1) - (a.inclusive.usd ?? -1) || a.sessionId.localeCompare(b.sessionId))
}
