/**
 * Price overrides on the session list and the session page (`sessions.list`, `sessions.get`): a session whose
 * usage upstream left unpriced shows the user's price, flagged `customPrice` ("custom price" in the UI), by the
 * same pieces as the Costs page. Read time only: nothing is written back to upstream's cost columns.
 */
import type { ModelUsage, PriceOverride, SessionDetail, SessionSummary } from '@shared/contract'
import { moneyFromMicros } from '@shared/contract/money'
import { customUsd, ownPieces, querySource, tokensOf } from './pieces'
import type { SessionStore } from '../store'

function priceSummary<T extends SessionSummary>(store: SessionStore, s: T, overrides: readonly PriceOverride[]): T {
  if (s.cost.complete) return s
  const src = querySource(store)
  const row = src.session(s.id)
  if (!row) return s
  const pieces = ownPieces(src, row, overrides)
  if (!pieces.some((p) => p.custom)) return s
  return { ...s, cost: moneyFromMicros(pieces.map((p) => p.money)), customPrice: true }
}

/**
 * Session rows (one profile's or all profiles'), priced where an override matches their unpriced usage. `overrides`
 * reads them: a page whose every cost is complete never needs them, so the file is not even looked at.
 */
export function priceSessionRows<T extends SessionSummary>(
  storeOf: (profile: string) => SessionStore,
  items: T[],
  overrides: () => readonly PriceOverride[]
): T[] {
  if (items.every((s) => s.cost.complete)) return items
  const o = overrides()
  if (!o.length) return items
  return items.map((s) => (s.cost.complete ? s : priceSummary(storeOf(s.profile), s, o)))
}

/** A session's detail: its summary and each unpriced usage route. */
export function priceSessionDetail(
  store: SessionStore,
  d: SessionDetail,
  overrides: readonly PriceOverride[]
): SessionDetail {
  if (!overrides.length || d.summary.cost.complete) return d
  const rows = querySource(store).modelRows(d.summary.id)
  const usage = d.usage.map((u): ModelUsage => {
    if (u.cost.status !== 'unpriced') return u
    // the row itself, endpoint included: matched by model/provider/task only, an unpriced row on another endpoint
    // was priced with its twin's tokens and the rows stopped adding up to the session's own cost
    const r = rows.find(
      (x) =>
        x.model === u.model &&
        String(x.billingProvider ?? '') === u.provider &&
        String(x.task ?? '') === u.task &&
        String(x.billingBaseUrl ?? '') === (u.baseUrl ?? '') &&
        String(x.billingMode ?? '') === (u.mode ?? '')
    )
    const usd = customUsd(overrides, u.model, u.baseUrl ?? '', r ? tokensOf(r) : u.tokens)
    return usd === null ? u : { ...u, cost: { usd, status: 'estimated', complete: true }, customPrice: true }
  })
  return { ...d, summary: priceSummary(store, d.summary, overrides), usage }
}
