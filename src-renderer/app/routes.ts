/** Hash routes: `#/sessions`, `#/session/<profile>/<id>?m=<messageId>`, `#/new/<profile>`, `#/settings/<profile>`, … */
export type Route =
  | { page: 'sessions' }
  | { page: 'session'; profile: string; sessionId: string; messageId: number | null }
  | { page: 'new'; profile: string }
  | { page: 'subagents' }
  | { page: 'costs' }
  | { page: 'memory' }
  | { page: 'gateway' }
  | { page: 'cron' }
  | { page: 'settings'; profile: string | null }

/**
 * The one profile a page acts on (where "New chat" starts one, whose Settings open): the profile in scope; under
 * "All", the active profile (the one the served home or `hermes profile use` names: ProfileInfo.isActive), else
 * `default`, else the first; none before profiles load.
 */
export function actingProfile(
  scope: string,
  profiles: ReadonlyArray<{ name: string; isDefault: boolean; isActive?: boolean }>
): string | undefined {
  if (scope !== 'all') return scope
  return (profiles.find((p) => p.isActive) ?? profiles.find((p) => p.isDefault) ?? profiles[0])?.name
}

export const NAV: Array<{ page: Route['page']; label: string; key: string }> = [
  { page: 'sessions', label: 'Sessions', key: 's' },
  { page: 'subagents', label: 'Subagents', key: 'a' },
  { page: 'costs', label: 'Costs', key: 'c' },
  { page: 'memory', label: 'Memory', key: 'm' },
  { page: 'gateway', label: 'Gateway', key: 'g' },
  { page: 'cron', label: 'Cron', key: 'j' },
  { page: 'settings', label: 'Settings', key: ',' }
]

const dec = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s // URIError: a malformed escape, kept as written
  }
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '')
  const [path = '', query = ''] = raw.split('?', 2)
  const parts = path.split('/').filter(Boolean).map(dec)
  const params = new URLSearchParams(query)
  switch (parts[0]) {
    case 'session': {
      if (!parts[1] || !parts[2]) return { page: 'sessions' }
      const m = Number(params.get('m'))
      return {
        page: 'session',
        profile: parts[1],
        sessionId: parts.slice(2).join('/'),
        messageId: params.has('m') && Number.isInteger(m) ? m : null
      }
    }
    case 'new':
      return parts[1] ? { page: 'new', profile: parts[1] } : { page: 'sessions' }
    case 'settings':
      return { page: 'settings', profile: parts[1] ?? null }
    case 'subagents':
    case 'costs':
    case 'memory':
    case 'gateway':
    case 'cron':
      return { page: parts[0] }
    default:
      return { page: 'sessions' }
  }
}

export function formatRoute(r: Route): string {
  const e = encodeURIComponent
  switch (r.page) {
    case 'session':
      return `#/session/${e(r.profile)}/${e(r.sessionId)}${r.messageId != null ? `?m=${r.messageId}` : ''}`
    case 'new':
      return `#/new/${e(r.profile)}`
    case 'settings':
      return r.profile ? `#/settings/${e(r.profile)}` : '#/settings'
    default:
      return `#/${r.page}`
  }
}

export const sessionHref = (profile: string, sessionId: string, messageId?: number | null) =>
  formatRoute({ page: 'session', profile, sessionId, messageId: messageId ?? null })
