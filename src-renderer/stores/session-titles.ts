import { create } from 'zustand'
import { getApi } from '../api'
import { sessionLabel, type Labelled } from '../lib/session-label'
import { sessionKey, useSessions } from './sessions'

/**
 * Names for session ids shown outside the session list (Subagents "Parent", Gateway agents, untitled search
 * results): looked up once per id through `sessions.get`, cached; the list's own rows answer first when loaded.
 * `null` in the cache = the lookup failed (the id stays the fallback).
 */
const useFacts = create<Record<string, Labelled | null>>()(() => ({}))
const asked = new Set<string>()

function ask(profile: string, id: string): void {
  const k = sessionKey(profile, id)
  if (asked.has(k)) return
  asked.add(k)
  getApi()
    .call('sessions.get', { profile, sessionId: id })
    .then(({ summary: s }) => useFacts.setState({ [k]: { title: s.title, preview: s.preview, at: s.lastActiveAt } }))
    .catch(() => useFacts.setState({ [k]: null }))
}

/**
 * The session's name by `sessionLabel` (title, first message, "Untitled session · <when>"), or null while it
 * loads or when the session cannot be read.
 */
export function useSessionLabel(profile: string, id: string | null | undefined): string | null {
  const k = id ? sessionKey(profile, id) : ''
  const row = useSessions((s) => (k ? s.byKey[k] : undefined))
  const cached = useFacts((s) => (k ? s[k] : null))
  if (!id) return null
  if (row) return sessionLabel({ title: row.title, preview: row.preview, at: row.lastActiveAt })
  if (cached === undefined) queueMicrotask(() => ask(profile, id))
  return cached ? sessionLabel(cached) : null
}

/** Forget cached names (tests; a reset home). */
export function resetSessionLabels(): void {
  asked.clear()
  useFacts.setState({}, true)
}
