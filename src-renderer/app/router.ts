import { useSyncExternalStore } from 'react'
import { formatRoute, parseHash, type Route } from './routes'

function subscribe(fn: () => void): () => void {
  window.addEventListener('hashchange', fn)
  return () => window.removeEventListener('hashchange', fn)
}

/** The current hash; parsed by the caller with useMemo so the route object is stable per hash. */
export function useHash(): string {
  return useSyncExternalStore(subscribe, () => location.hash)
}

export function navigate(route: Route | string, replace = false): void {
  const hash = typeof route === 'string' ? route : formatRoute(route)
  if (replace) {
    history.replaceState(history.state, '', hash)
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  } else location.hash = hash
}

export { parseHash }
