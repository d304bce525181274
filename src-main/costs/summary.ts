/**
 * `costs.summary`: the Costs page. Every figure — total, per profile, by model, by day, top sessions, the custom
 * price note — is a sum of the same micro-dollar day slices (pieces.ts), so they agree exactly. Only
 * slices inside the period (and on the chosen day, when the page is filtered to one) count.
 */
import type { CostSummary, Money, PriceOverride, Tokens } from '@shared/contract'
import { moneyFromMicros, type Micros } from '@shared/contract/money'
import { addTokens, ZERO_TOKENS } from '@shared/contract/tokens'
import { childPieces, dayOf, ownPieces, prefetchedSource, sliceMoney, tokensOf, type Piece } from './pieces'
import type { ProfileStore } from './session-cost'

const total = (parts: Micros[]): Money => moneyFromMicros(parts)

/** Before any session (SQLite compares it as a number; an infinity would not bind as one). */
const NO_BOUND = -1e15

/**
 * The period's local days (`sinceDay` … `untilDay`, null = open) and the epoch a session must have been active since
 * to hold spend in it: the last `days` days (today and the days before it), all of the history, or `from`–`to`.
 */
function period(
  q: { days?: number; all?: boolean; from?: string; to?: string },
  now: number
): { since: number; sinceDay: string; untilDay: string | null } {
  if (q.all) return { since: NO_BOUND, sinceDay: '', untilDay: null }
  if (q.from || q.to) {
    // a day before the first local day's midnight: a session's activity is compared as an epoch, its days locally
    const start = q.from ? Date.parse(`${q.from}T00:00:00`) / 1000 - 86400 : NO_BOUND
    return { since: Number.isFinite(start) ? start : NO_BOUND, sinceDay: q.from ?? '', untilDay: q.to ?? null }
  }
  const days = Math.min(3650, Math.max(1, Math.trunc(q.days ?? 30)))
  // N days = today and the N-1 days before it.
  return { since: now - days * 86400, sinceDay: dayOf(now - (days - 1) * 86400), untilDay: null }
}

export function costSummary(
  stores: ProfileStore[],
  query: {
    profile?: string
    days?: number
    all?: boolean
    from?: string
    to?: string
    day?: string
    allSessions?: boolean
  },
  now = Date.now() / 1000,
  /** The user's prices for usage upstream left unpriced (applied here, at read time, never written back). */
  overrides: readonly PriceOverride[] = []
): CostSummary {
  const { since, sinceDay, untilDay } = period(query, now)
  const inView = (day: string) =>
    day >= sinceDay && (untilDay === null || day <= untilDay) && (!query.day || day === query.day)
  const selected = stores.filter((s) => !query.profile || query.profile === 'all' || s.profile === query.profile)
  const profiles: CostSummary['profiles'] = []
  const models = new Map<string, { parts: Micros[]; tokens: Tokens; custom: boolean }>()
  const byDay = new Map<string, { day: string; profile: string; parts: Micros[] }>()
  const tokensByDay = new Map<string, { day: string; profile: string; tokens: Tokens }>()
  const top: CostSummary['topSessions'] = []
  const custom = { parts: [] as Micros[], models: new Set<string>() }
  const all: Micros[] = []
  for (const { profile, store } of selected) {
    const src = prefetchedSource(store)
    const owners = store.costRepo().ownersActiveSince(since)
    const ownParts: Micros[] = []
    const childParts: Micros[] = []
    let sessions = 0
    /** Adds a piece's slices in view to every grouping; returns them in micro-dollars. */
    const take = (p: Piece): Micros[] => {
      const out: Micros[] = []
      for (const s of p.slices) {
        if (!inView(s.day)) continue
        const m = sliceMoney(p, s)
        out.push(m)
        const model = models.get(p.model) ?? { parts: [], tokens: ZERO_TOKENS(), custom: false }
        model.parts.push(m)
        addTokens(model.tokens, p.tokens, s.share)
        model.custom ||= p.custom
        models.set(p.model, model)
        const key = `${profile}\u0000${s.day}`
        const d = byDay.get(key) ?? { day: s.day, profile, parts: [] }
        d.parts.push(m)
        byDay.set(key, d)
        if (p.custom) {
          custom.parts.push(m)
          custom.models.add(p.model)
        }
      }
      return out
    }
    for (const r of owners) {
      const id = String(r.id)
      const customBefore = custom.parts.length
      const own = ownPieces(src, r, overrides).flatMap(take)
      const kids = childPieces(store, src, id, overrides).flatMap((c) => c.pieces.flatMap(take))
      ownParts.push(...own)
      childParts.push(...kids)
      all.push(...own, ...kids)
      // a session with no spend in view is one of the period's only if it was there: not on another day than the one
      // chosen, nor started after the period ended
      if (!own.length && !kids.length && (query.day || (untilDay !== null && dayOf(Number(r.startedAt)) > untilDay)))
        continue
      // An internal session upstream marks hidden is in no session list (nor can it be opened from one): its spend
      // counts in the totals, as upstream's own insights report counts it, but it is not offered as a top session.
      if (Number(r.hidden ?? 0) !== 0) continue
      sessions++
      top.push({
        profile,
        sessionId: id,
        title: r.title ?? null,
        own: total(own),
        inclusive: total([...own, ...kids]),
        ...(custom.parts.length > customBefore ? { customPrice: true } : {})
      })
    }
    profiles.push({
      profile,
      own: total(ownParts),
      children: total(childParts),
      inclusive: total([...ownParts, ...childParts]),
      sessions
    })
    // Tokens per day: every session's own usage rows (children's included), whatever their price.
    for (const d of src.allDaily) {
      if (d.day < sinceDay || (untilDay !== null && d.day > untilDay)) continue
      const key = `${profile}\u0000${d.day}`
      const t = tokensByDay.get(key) ?? { day: d.day, profile, tokens: ZERO_TOKENS() }
      addTokens(t.tokens, tokensOf(d))
      tokensByDay.set(key, t)
    }
  }
  top.sort((a, b) => (b.inclusive.usd ?? -1) - (a.inclusive.usd ?? -1) || a.sessionId.localeCompare(b.sessionId))
  const byDate = (a: { day: string; profile: string }, b: { day: string; profile: string }) =>
    a.day.localeCompare(b.day) || a.profile.localeCompare(b.profile)
  const customTotal = total(custom.parts)
  return {
    profiles,
    total: total(all),
    byModel: [...models]
      .map(([model, m]) => ({
        model,
        cost: total(m.parts),
        tokens: m.tokens,
        ...(m.custom ? { customPrice: true } : {})
      }))
      .sort((a, b) => (b.cost.usd ?? -1) - (a.cost.usd ?? -1) || a.model.localeCompare(b.model)),
    byDay: [...byDay.values()]
      .map((d) => {
        const m = total(d.parts)
        return { day: d.day, profile: d.profile, usd: m.usd ?? 0, unpriced: !m.complete }
      })
      .sort(byDate),
    tokensByDay: [...tokensByDay.values()].sort(byDate),
    topSessions: query.allSessions ? top : top.slice(0, 10),
    ...(custom.models.size ? { customPriced: { usd: customTotal.usd ?? 0, models: [...custom.models].sort() } } : {})
  }
}
