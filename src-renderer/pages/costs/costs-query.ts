/** The Costs page's query string: scope, period and day filter, defaults left out, unknown values ignored. */
import { DAY_CHOICES } from '../../stores/costs'

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** The view the URL holds: the last N days, all of the history, or a from–to period; and a day filter. */
export interface CostsView {
  days: number
  all: boolean
  from: string | null
  to: string | null
  day: string | null
}

export function costsQuery(scope: string, v: CostsView): string {
  const p = new URLSearchParams()
  if (scope !== 'all') p.set('profile', scope)
  if (v.all) p.set('days', 'all')
  else if (v.from || v.to) {
    if (v.from) p.set('from', v.from)
    if (v.to) p.set('to', v.to)
  } else if (v.days !== 30) p.set('days', String(v.days))
  if (v.day) p.set('day', v.day)
  const s = p.toString()
  return s ? `?${s}` : ''
}

export function parseCostsQuery(query: string): {
  scope: string | null
  days: number | null
  all: boolean
  from: string | null
  to: string | null
  day: string | null
} {
  const p = new URLSearchParams(query)
  const days = Number(p.get('days'))
  const day = p.get('day')
  const ok = (v: string | null) => (v && DAY.test(v) ? v : null)
  return {
    scope: p.get('profile'),
    days: (DAY_CHOICES as readonly number[]).includes(days) ? days : null,
    all: p.get('days') === 'all',
    from: ok(p.get('from')),
    to: ok(p.get('to')),
    day: ok(day)
  }
}
