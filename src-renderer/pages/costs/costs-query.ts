/** The Costs page's query string: scope, period and day filter, defaults left out, unknown values ignored. */
import { DAY_CHOICES } from '../../stores/costs'

const DAY = /^\d{4}-\d{2}-\d{2}$/

export function costsQuery(scope: string, days: number, day: string | null): string {
  const p = new URLSearchParams()
  if (scope !== 'all') p.set('profile', scope)
  if (days !== 30) p.set('days', String(days))
  if (day) p.set('day', day)
  const s = p.toString()
  return s ? `?${s}` : ''
}

export function parseCostsQuery(query: string): { scope: string | null; days: number | null; day: string | null } {
  const p = new URLSearchParams(query)
  const days = Number(p.get('days'))
  const day = p.get('day')
  return {
    scope: p.get('profile'),
    days: (DAY_CHOICES as readonly number[]).includes(days) ? days : null,
    day: day && DAY.test(day) ? day : null
  }
}
