/**
 * Host events for the open transcript: its window grows by what came after its last message, its details (queries,
 * transcript-meta.ts) are marked stale once per burst.
 */
import type { EventPayload } from '@shared/contract'
import { cachedChain, cachedDetail, invalidateSessionMeta } from './transcript-meta'
import { learnChain, loadNewer, openWindow, rereadWindow, useTranscript } from './transcript'

/** Is the open window at the newest messages (not after Home or a search hit, which must not drag in the rest)? */
const atLatest = () => openWindow()?.hasMoreAfter !== true

/**
 * Re-read the open session's details that are on screen — lineage, usage, cost split, chain costs, subagents —
 * once per burst; and its chain, if the first read of it failed.
 */
export async function refreshTranscriptMeta(): Promise<void> {
  const { profile, sessionId } = useTranscript.getState()
  if (!profile || !sessionId) return
  const chain = cachedChain(profile, sessionId)
  await invalidateSessionMeta(profile, chain.includes(sessionId) ? chain : [sessionId])
  await learnChain()
}

/** The open transcript's session and its compression chain (as last read), when it is of `profile`. */
function openIds(profile: string): string[] | null {
  const st = useTranscript.getState()
  if (!st.sessionId || st.profile !== profile) return null
  return [st.sessionId, ...cachedChain(profile, st.sessionId)]
}

/** Ids whose change concerns the open transcript: itself and its compression chain. */
function concernsOpen(profile: string, ids: string[]): boolean {
  const own = openIds(profile)
  if (!own) return false
  return ids.length === 0 || own.some((id) => ids.includes(id))
}

/**
 * Changes that concern the open session's details only: a delegate child of it (or of a chain segment) — one the
 * details already list, or a new one the event names by its parent (`parentIds`: another process's delegate
 * starting, saving messages, adding cost, ending; no delegation event says so).
 */
function concernsChildren(profile: string, evt: EventPayload<'sessions.changed'>): boolean {
  const own = openIds(profile)
  if (!own) return false
  if (evt.parentIds?.some((id) => own.includes(id))) return true
  const detail = cachedDetail(profile, useTranscript.getState().sessionId!)
  return !!detail?.lineage.delegateChildren.some((r) => evt.sessionIds.includes(r.id))
}

export async function applyTranscriptSessionsChanged(evt: EventPayload<'sessions.changed'>): Promise<void> {
  if (concernsOpen(evt.profile, evt.sessionIds)) {
    if (atLatest()) await loadNewer()
  } else if (!concernsChildren(evt.profile, evt)) return
  await refreshTranscriptMeta()
}

export async function applyTranscriptDelegationUpdated(evt: EventPayload<'delegation.updated'>): Promise<void> {
  const st = useTranscript.getState()
  if (st.profile !== evt.profile || !st.sessionId || evt.parentSessionId !== st.sessionId) return
  await refreshTranscriptMeta()
}

/** A saved message belongs in the open transcript right away, not after the sessions watcher's coalescing. */
export function applyTranscriptMessageSaved(e: EventPayload<'turn.delta'>): void {
  const t = useTranscript.getState()
  if (e.kind !== 'message_saved' || t.profile !== e.profile) return
  if ((t.sessionId === e.sessionId || t.sessionId === e.savedSessionId) && atLatest()) void loadNewer()
}

/** After a reconnect: what was appended while events were missed (its details are queries on screen: read again). */
export async function resyncTranscript(): Promise<void> {
  if (!useTranscript.getState().sessionId) return
  if (atLatest()) await loadNewer()
  await learnChain()
}

/**
 * A state.db was replaced, deleted or appeared (`profiles.changed`, which does not say whose): the open transcript's
 * rows are read again, and its details.
 */
export async function applyTranscriptFileChanged(): Promise<void> {
  if (!useTranscript.getState().sessionId) return
  await rereadWindow()
  await refreshTranscriptMeta()
}
