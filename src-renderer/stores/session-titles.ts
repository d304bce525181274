import { useQuery } from '@tanstack/react-query'
import { getApi } from '../api'
import { sessionLabel, type Labelled } from '../lib/session-label'
import { sessionKey, useLoadedRow } from './sessions'
import { requestKey } from './server'

/**
 * Names for session ids shown outside the session list (Subagents "Parent", Gateway agents, untitled search
 * results): looked up once per id through `sessions.get` (a query that never goes stale by itself), and the
 * list's own rows answer first when loaded. A failed lookup caches `null` quietly (the id stays the fallback).
 */
const labelQuery = (profile: string, id: string) => ({
  // the request's key plus 'label': this cache holds only the naming facts, not the whole `sessions.get` reply
  queryKey: [...requestKey('sessions.get', { profile, sessionId: id }), 'label'] as const,
  queryFn: async (): Promise<Labelled | null> => {
    try {
      const { summary: s } = await getApi().call('sessions.get', { profile, sessionId: id })
      return { title: s.title, preview: s.preview, at: s.lastActiveAt }
    } catch {
      return null // deleted, or the host cannot say now: no label (useSessionLabel's null)
    }
  },
  staleTime: Infinity
})

/**
 * The session's name by `sessionLabel` (title, first message, "Untitled session · <when>"), or null while it
 * loads or when the session cannot be read.
 */
export function useSessionLabel(profile: string, id: string | null | undefined): string | null {
  const k = id ? sessionKey(profile, id) : ''
  const row = useLoadedRow(k)
  const cached = useQuery({ ...labelQuery(profile, id ?? ''), enabled: !!id && !row }).data
  if (!id) return null
  if (row) return sessionLabel({ title: row.title, preview: row.preview, at: row.lastActiveAt })
  return cached ? sessionLabel(cached) : null
}
