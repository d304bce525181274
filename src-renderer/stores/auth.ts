import { create } from 'zustand'
import { storedToken } from '../api/token'

/**
 * Why the headless page cannot talk to the host: no token in this tab, a token the host refuses (it restarted
 * and made a new one), or the host is not answering at all.
 */
export type HostAccess = 'ok' | 'missing-token' | 'token-rejected' | 'host-down' | 'unknown'

export const useHostAccess = create<{ access: HostAccess }>()(() => ({ access: 'unknown' }))

/** Ask the host over plain HTTP what is wrong; the WebSocket only says "closed". */
export async function probeHost(): Promise<HostAccess> {
  const token = storedToken()
  let access: HostAccess
  try {
    // relative to the page: a reverse proxy may serve the app under a sub-path (`/caduceus/`)
    const health = await fetch('api/health', { cache: 'no-store' })
    if (!health.ok) access = 'host-down'
    else if (!token) access = 'missing-token'
    else {
      const res = await fetch('api/call', {
        method: 'POST',
        cache: 'no-store',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'app.info', input: {} })
      })
      access = res.status === 401 ? 'token-rejected' : 'ok'
    }
  } catch {
    access = 'host-down' // fetch rejects only when no host answers (a network error)
  }
  useHostAccess.setState({ access })
  return access
}

export const setHostAccess = (access: HostAccess) => useHostAccess.setState({ access })
