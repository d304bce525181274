import type { ModelUsage } from '@shared/contract'
import { toCents } from '../../lib/format'
import { parseUrl } from '@shared/contract/errors'

/**
 * What tells a usage row from its twins: rows of one model, provider and task are separate routes only because
 * their endpoint (or billing mode) differs, so that is what they show. Null when the row has no twin.
 */
export function routeNote(rows: readonly ModelUsage[], u: ModelUsage): string | null {
  const twins = rows.filter((x) => x !== u && x.model === u.model && x.provider === u.provider && x.task === u.task)
  if (!twins.length) return null
  const host = (url: string | undefined) => {
    if (!url) return 'default endpoint'
    return parseUrl(url)?.host || url
  }
  const sameHost = twins.some((t) => host(t.baseUrl) === host(u.baseUrl))
  if (sameHost) return u.baseUrl ? (u.mode ? `${u.baseUrl} · ${u.mode}` : u.baseUrl) : (u.mode ?? 'default endpoint')
  return host(u.baseUrl)
}

/**
 * Amounts rounded to cents so the shown parts add up to the shown total (largest remainder): $0.045 + $0.045
 * reads $0.05 + $0.04 under $0.09, never $0.05 + $0.05. Null parts (unpriced) stay null; totals that are not
 * a sum of these parts are left alone. A priced part that gets no whole cent reads "<$0.01".
 */
export function centsThatAddUp(total: number, parts: (number | null)[]): (number | null)[] {
  const priced = parts.filter((p): p is number => p != null)
  const sum = priced.reduce((a, b) => a + b, 0)
  if (Math.abs(sum - total) > 1e-6) return parts
  const target = toCents(total)
  const floors = priced.map((p) => Math.floor(Number((p * 100).toPrecision(12))))
  let rest = target - floors.reduce((a, b) => a + b, 0)
  const order = priced.map((p, i) => [p * 100 - floors[i]!, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1])
  for (const [, i] of order) {
    if (rest <= 0) break
    floors[i]! += 1
    rest--
  }
  let k = 0
  // a priced part the whole cents went past reads "<$0.01" (an amount under half a cent: its own, or just under
  // $0.005 for one such as $0.008 that lost the rounding), never a silent $0.00 and never a cent the total lacks
  return parts.map((p) => {
    if (p == null) return null
    const cents = floors[k++]!
    return cents === 0 && p > 0 ? Math.min(p, 0.0049) : cents / 100
  })
}
