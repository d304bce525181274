const KEY = 'caduceus.token'

interface TokenEnv {
  location: { href: string }
  history: { replaceState(data: unknown, unused: string, url?: string): void }
  sessionStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void }
}

/**
 * The headless host hands us `?token=` once. Keep it in sessionStorage (survives reloads of this tab only)
 * and strip it from the address bar so it doesn't land in history, screenshots or bug reports.
 */
export function takeToken(env: TokenEnv): string | null {
  const url = new URL(env.location.href)
  const fromQuery = url.searchParams.get('token')
  if (fromQuery) {
    try {
      env.sessionStorage.setItem(KEY, fromQuery)
    } catch {
      /* storage disabled: keep it in memory only */
    }
    url.searchParams.delete('token')
    env.history.replaceState(null, '', url.pathname + (url.search === '?' ? '' : url.search) + url.hash)
    return fromQuery
  }
  try {
    return env.sessionStorage.getItem(KEY)
  } catch {
    return null // storage disabled: no token kept
  }
}

export function wsUrl(loc: { protocol: string; host: string }, token: string | null): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws'
  return `${scheme}://${loc.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`
}

/** The token this tab holds (after takeToken ran), or null. */
export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY)
  } catch {
    return null // storage disabled: no token kept
  }
}
