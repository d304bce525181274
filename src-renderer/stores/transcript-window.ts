/**
 * A transcript's loaded messages as query data: one window per session, keyed by request + input
 * (`['sessions.messages', { profile, sessionId }]`). It is deliberately not an infinite query: it pages both ways
 * across a compression chain's segments, Home/End and a search hit replace it, and live appends extend it by "what
 * came after the last id" — so every page lands through `setQueryData` (transcript.ts), and nothing re-reads the
 * pages it holds. It has no fetch of its own (`skipToken`): no invalidation or mount reads it again behind the pager.
 *
 * The query cache is the switch-back cache too: a window left shows again at once (no round trip), then catches up.
 * It is kept as long as its details (KEPT_MS, transcript-meta.ts), and only the last KEPT_MAX windows left.
 */
import { queryOptions, skipToken, useQuery } from '@tanstack/react-query'
import type { Message } from '@shared/contract'
import { keyInput, queryClient, requestKey, requestPrefix } from './server'
import { dropSessionMeta, KEPT_MS } from './transcript-meta'

export interface MessageWindow {
  byId: Record<number, Message>
  /** Message ids, ascending. */
  ids: number[]
  hasMoreBefore: boolean
  hasMoreAfter: boolean
  /** The session's compression chain has been read: `olderSegments` is set from it once, then follows the paging. */
  chainKnown: boolean
  /**
   * Earlier segments of this session's compression chain (root first) not loaded yet: the chain reads as one
   * conversation, "load older" continues into them once this segment's start is reached.
   */
  olderSegments: string[]
  /** The segment the "older" pages currently come from (the open session until its start is reached). */
  pagingSession: string
  /**
   * While the newest messages are not loaded (`hasMoreAfter`: after Home or a search hit), the segment the next
   * "newer" page comes from; the chain's later segments follow it, up to the open session.
   */
  forwardSession: string
}

/** How many transcripts left stay in the cache for switching back (the most recently left). */
const KEPT_MAX = 4

const windowQuery = (profile: string, sessionId: string) =>
  queryOptions<MessageWindow>({
    queryKey: requestKey('sessions.messages', { profile, sessionId }),
    queryFn: skipToken,
    gcTime: KEPT_MS
  })

/** Nothing loaded yet: pages come from the session itself. */
const emptyWindow = (sessionId: string): MessageWindow => ({
  byId: {},
  ids: [],
  hasMoreBefore: false,
  hasMoreAfter: false,
  chainKnown: false,
  olderSegments: [],
  pagingSession: sessionId,
  forwardSession: sessionId
})

/** A session's loaded window, if the cache holds one. */
export const cachedWindow = (profile: string, sessionId: string): MessageWindow | undefined =>
  queryClient.getQueryData(windowQuery(profile, sessionId).queryKey)

/** Change a session's window (created empty when there is none). */
export function updateWindow(
  profile: string,
  sessionId: string,
  fn: (w: MessageWindow) => Partial<MessageWindow>
): void {
  const q = windowQuery(profile, sessionId)
  // built with its options first: a window no view observed yet is kept as long as one a view left
  queryClient.getQueryCache().build(queryClient, { queryKey: q.queryKey, gcTime: q.gcTime })
  queryClient.setQueryData(q.queryKey, (w) => {
    const base = w ?? emptyWindow(sessionId)
    return { ...base, ...fn(base) }
  })
}

/** `items` merged into what the window holds, ids kept ascending and unique. */
export function withMessages(w: Pick<MessageWindow, 'byId' | 'ids'>, items: Message[]) {
  const byId = { ...w.byId }
  let added = false
  for (const m of items) {
    if (!byId[m.id]) added = true
    byId[m.id] = m
  }
  const ids = added
    ? Object.keys(byId)
        .map(Number)
        .sort((a, b) => a - b)
    : w.ids
  return { byId, ids }
}

/** Back to "nothing loaded" (a view on it shows it loading) for an open that replaces what it held. */
export function resetWindow(profile: string, sessionId: string): void {
  void queryClient.resetQueries({ queryKey: windowQuery(profile, sessionId).queryKey, exact: true })
}

/**
 * Out of the cache: nothing to switch back to (its first page never came, or it is gone). Only while no view shows
 * it: a view would go on watching the removed query, not the one its next page lands in.
 */
export function dropWindow(profile: string, sessionId: string): void {
  const { queryKey } = windowQuery(profile, sessionId)
  queryClient.removeQueries({ queryKey, exact: true, predicate: (q) => q.getObserversCount() === 0 })
}

/** A session that is gone (deleted) must not come back from the cache: its window and its details go. */
export function forgetTranscript(profile: string, sessionId: string): void {
  dropWindow(profile, sessionId)
  dropSessionMeta(profile, sessionId)
}

const windows = () => queryClient.getQueryCache().findAll({ queryKey: requestPrefix('sessions.messages') })

/**
 * Leaving a window stamps it after every other (a window changes only while open): the cache then knows which
 * windows were left last, even several within one millisecond.
 */
export function leaveWindow(profile: string, sessionId: string): void {
  const latest = Math.max(0, ...windows().map((q) => q.state.dataUpdatedAt))
  const updatedAt = Math.max(Date.now(), latest + 1)
  queryClient.setQueryData(windowQuery(profile, sessionId).queryKey, (w) => w, { updatedAt })
}

/** Beyond KEPT_MAX windows besides the one opening now, the longest left go, with their details. */
export function trimWindows(profile: string, sessionId: string): void {
  const left = windows()
    .map((q) => ({ input: keyInput<'sessions.messages'>(q.queryKey), at: q.state.dataUpdatedAt }))
    .filter(({ input }) => input.profile !== profile || input.sessionId !== sessionId)
    .sort((a, b) => b.at - a.at)
  for (const { input } of left.slice(KEPT_MAX)) forgetTranscript(input.profile, input.sessionId)
}

/** A session's window as a view shows it (undefined until its first page is in); the view holds it in the cache. */
export function useMessageWindow<T = MessageWindow>(
  profile: string | null,
  sessionId: string | null,
  select: (w: MessageWindow) => T = (w) => w as T
): T | undefined {
  return useQuery({ ...windowQuery(profile ?? '', sessionId ?? ''), select }).data
}
