/**
 * The Costs page's view in the URL: `#/costs?profile=work&days=90&day=2026-11-03` (or `days=all`, or
 * `from=2023-01-01&to=2024-06-30`). Opening or reloading such a link restores it; changing scope, period or the day
 * filter rewrites the query in place (replaceState), like the Sessions page's filters.
 */
import { setScope, useApp } from '../../stores/app'
import { loadCosts, useCosts } from '../../stores/costs'
import { costsQuery, parseCostsQuery } from './costs-query'
import { replaceHash, useUrlSync } from '../../app/url-sync'

const onCosts = () => /^#\/costs(\?|$)/.test(location.hash)

function applyFromUrl(): void {
  if (!onCosts()) return
  const { scope, days, all, from, to, day } = parseCostsQuery(location.hash.split('?')[1] ?? '')
  const cur = useCosts.getState()
  const next = { days: days ?? cur.days, all, from, to, day }
  const changed =
    next.days !== cur.days ||
    next.all !== cur.all ||
    next.from !== cur.from ||
    next.to !== cur.to ||
    next.day !== cur.day
  if (changed) useCosts.setState(next)
  if (scope && scope !== useApp.getState().scope)
    setScope(scope) // the page reloads on a scope change
  else if (changed) void loadCosts()
}

function writeToUrl(): void {
  if (!onCosts()) return
  replaceHash(`#/costs${costsQuery(useApp.getState().scope, useCosts.getState())}`)
}

const watchCosts = (changed: () => void) =>
  useCosts.subscribe((s, p) => {
    if (s.days !== p.days || s.all !== p.all || s.from !== p.from || s.to !== p.to || s.day !== p.day) changed()
  })

export function useCostsUrlState(): void {
  useUrlSync(applyFromUrl, writeToUrl, watchCosts, true)
}
