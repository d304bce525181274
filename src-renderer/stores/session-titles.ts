import { create } from 'zustand'
import { getApi } from '../api'
import { sessionKey, useSessions } from './sessions'

/**
 * Names for session ids shown outside the session list (Subagents "Parent", Gateway agents): looked up once per
 * id through `sessions.get`, cached; the list's own rows answer first when loaded.
 */
const useTitles = create<Record<string, string | null>>()(() => ({}))
const asked = new Set<string>()

function ask(profile: string, id: string): void {
  const k = sessionKey(profile, id)
  if (asked.has(k)) return
  asked.add(k)
  getApi()
    .call('sessions.get', { profile, sessionId: id })
    .then((d) => useTitles.setState({ [k]: d.summary.title || d.summary.preview || null }))
    .catch(() => useTitles.setState({ [k]: null }))
}

export function useSessionTitle(profile: string, id: string | null | undefined): string | null {
  const k = id ? sessionKey(profile, id) : ''
  const fromList = useSessions((s) => (k ? s.byKey[k]?.title || s.byKey[k]?.preview || null : null))
  const cached = useTitles((s) => (k ? s[k] : null))
  if (!id || fromList) return fromList
  if (cached === undefined) queueMicrotask(() => ask(profile, id))
  return cached ?? null
}
