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

/**
 * The host's WebSocket beside the page: `wss:` under https (a reverse proxy with TLS), the page's own host and port
 * (an SSH tunnel's local port), and its folder, so a proxy serving the app under a sub-path (`/caduceus/`) reaches it.
 */
export function wsUrl(loc: { protocol: string; host: string; pathname: string }, token: string | null): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws'
  const folder = loc.pathname.slice(0, loc.pathname.lastIndexOf('/') + 1) || '/'
  return `${scheme}://${loc.host}${folder}ws${token ? `?token=${encodeURIComponent(token)}` : ''}`
}

/** The token this tab holds (after takeToken ran), or null. */
export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY)
  } catch {
    return null // storage disabled: no token kept
  }
}
