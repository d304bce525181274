/** Desk-chat session keys: one cached agent per (profile, session). */
const KEY_RE = /^agent:([a-z0-9][a-z0-9_-]{0,63}):([a-z_]+):(.+)$/

export function sessionKeyFor(profile: string, sessionId: string, platform = 'desktop'): string {
  return `agent:${profile}:${platform}:${sessionId}`
}

export function parseSessionKey(key: string): { profile: string; platform: string; sessionId: string } | null {
  const m = KEY_RE.exec(key)
  return m ? { profile: m[1], platform: m[2], sessionId: m[3] } : null
}
