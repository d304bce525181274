/**
 * The Costs page's view in the URL: `#/costs?profile=work&days=90&day=2026-11-03`. Opening or reloading such a
 * link restores it; changing scope, period or the day filter rewrites the query in place (replaceState), like the
 * Sessions page's filters.
 */
import { useEffect } from 'react'
import { setScope, useApp } from '../../stores/app'
import { loadCosts, useCosts } from '../../stores/costs'
import { costsQuery, parseCostsQuery } from './costs-query'

const onCosts = () => /^#\/costs(\?|$)/.test(location.hash)

function applyFromUrl(): void {
  if (!onCosts()) return
  const { scope, days, day } = parseCostsQuery(location.hash.split('?')[1] ?? '')
  const cur = useCosts.getState()
  const next = { days: days ?? cur.days, day }
  const changed = next.days !== cur.days || next.day !== cur.day
  if (changed) useCosts.setState(next)
  if (scope && scope !== useApp.getState().scope)
    setScope(scope) // the page reloads on a scope change
  else if (changed) void loadCosts()
}

function writeToUrl(): void {
  if (!onCosts()) return
  const { days, day } = useCosts.getState()
  const next = `#/costs${costsQuery(useApp.getState().scope, days, day)}`
  if (next !== location.hash) history.replaceState(history.state, '', next)
}

export function useCostsUrlState(): void {
  useEffect(() => {
    applyFromUrl()
    writeToUrl()
    const onHash = () => {
      applyFromUrl()
      writeToUrl()
    }
    window.addEventListener('hashchange', onHash)
    const unA = useApp.subscribe((s, p) => {
      if (s.scope !== p.scope) writeToUrl()
    })
    const unC = useCosts.subscribe((s, p) => {
      if (s.days !== p.days || s.day !== p.day) writeToUrl()
    })
    return () => {
      window.removeEventListener('hashchange', onHash)
      unA()
      unC()
    }
  }, [])
}
