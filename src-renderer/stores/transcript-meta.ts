/**
 * The open transcript's details — lineage, cost split, each chain segment's cost, subagents — as queries keyed by
 * request + input (server.ts). Switching back shows them from the cache while they refetch: they are kept as long as
 * the transcript's message window (KEPT_MS, transcript-window.ts), so the two go together. Host events mark them
 * stale through `invalidateSoon` (one refetch per burst, for the ones on screen); each fails on its own, keeping what
 * it showed. A session that is gone is a screen of its own (SessionNotFound), so `not_found` never toasts here, and
 * the parts besides the lineage fail silently, as a missing cost or subagent list did before they were queries:
 * refetched on every event, a host that cannot price would otherwise push a toast per event and per chain segment.
 */
import { useQueries, useQuery } from '@tanstack/react-query'
import type { SessionCost, SessionDetail } from '@shared/contract'
import { invalidateSoon, isNotFound, keyInput, queryClient, requestQuery } from './server'

/** How long a transcript left stays cached for switching back: its window and these details alike. */
export const KEPT_MS = 30 * 60_000

const kept = <Q extends object>(q: Q): Q => ({ ...q, gcTime: KEPT_MS })
const quiet = <Q extends { meta?: object }>(q: Q): Q => ({ ...q, meta: { ...q.meta, quietNotFound: true } })
const silent = <Q extends { meta?: object }>(q: Q): Q => ({ ...q, meta: { ...q.meta, silent: true } })

const sessionDetailQuery = (profile: string, sessionId: string) =>
  kept(quiet(requestQuery('sessions.get', { profile, sessionId }, 'Loading session')))

const sessionCostQuery = (profile: string, sessionId: string) =>
  kept(silent(requestQuery('costs.session', { profile, sessionId }, 'Loading session cost')))

const sessionChildrenQuery = (profile: string, sessionId: string) =>
  kept(
    silent(
      requestQuery(
        'subagents.list',
        { profile, parentSessionId: sessionId, includeTombstoned: true },
        'Loading subagents'
      )
    )
  )

/** A session page's detail reads: its lineage and summary, its cost split, its subagents. */
export const sessionMetaQueries = (profile: string, sessionId: string) => ({
  detail: sessionDetailQuery(profile, sessionId),
  cost: sessionCostQuery(profile, sessionId),
  children: sessionChildrenQuery(profile, sessionId)
})

/** The cached lineage of a session (null until read). */
export const cachedDetail = (profile: string, sessionId: string): SessionDetail | null =>
  queryClient.getQueryData(sessionDetailQuery(profile, sessionId).queryKey) ?? null

/** The ids of a session's compression chain, root first, as last read ([] until read). */
export const cachedChain = (profile: string, sessionId: string): string[] =>
  cachedDetail(profile, sessionId)?.lineage.chain.map((r) => r.id) ?? []

/** Are these details about one of `ids` of `profile` (the session itself, or the parent of its subagents)? */
function aboutSessions(key: readonly unknown[], profile: string, ids: string[]): boolean {
  if (key[0] !== 'sessions.get' && key[0] !== 'costs.session' && key[0] !== 'subagents.list') return false
  const input = keyInput<'sessions.get' | 'costs.session' | 'subagents.list'>(key)
  const id = 'sessionId' in input ? input.sessionId : input.parentSessionId
  return input.profile === profile && id !== undefined && ids.includes(id)
}

/** Re-read the details of these sessions that are on screen (a burst of calls is one refetch). */
export function invalidateSessionMeta(profile: string, ids: string[]): Promise<void> {
  return invalidateSoon({ predicate: (q) => aboutSessions(q.queryKey, profile, ids) })
}

/**
 * A deleted session's details must not come back from the cache. Only those no view shows: a page still open on it
 * keeps its queries, whose next read says it is gone.
 */
export function dropSessionMeta(profile: string, sessionId: string): void {
  queryClient.removeQueries({ type: 'inactive', predicate: (q) => aboutSessions(q.queryKey, profile, [sessionId]) })
}

/** What the session page shows besides the messages. */
export function useTranscriptMeta(profile: string, sessionId: string) {
  const detail = useQuery(sessionDetailQuery(profile, sessionId))
  const cost = useQuery(sessionCostQuery(profile, sessionId))
  const children = useQuery(sessionChildrenQuery(profile, sessionId))
  const chain = detail.data?.lineage.chain ?? []
  // a compression chain reads as one conversation: its header totals every segment, and a segment that could
  // not be read leaves the total out rather than showing a smaller one as the whole
  const chainCosts = useQueries({
    queries: chain.length > 1 ? chain.map((r) => sessionCostQuery(profile, r.id)) : [],
    combine: (rs) => ({
      costs: rs.length && rs.every((r) => r.isSuccess) ? rs.map((r) => r.data as SessionCost) : null,
      pending: rs.some((r) => r.isPending)
    })
  })
  return {
    detail: detail.data ?? null,
    cost: cost.data ?? null,
    chainCosts: chainCosts.costs,
    /**
     * The cost split and every chain segment's cost have answered (or failed): what the header may show as the
     * session's cost without changing its figure or its scope a moment later.
     */
    costSettled: !cost.isPending && !chainCosts.pending,
    children: children.data?.items ?? [],
    gone: isNotFound(detail.error)
  }
}

// Parts of the page below it (cards under a delegation notice, a lineage link, the segment markers) share the
// page's queries: mounting one as the reader scrolls must not read them again.

const shared = { refetchOnMount: false } as const

/** The session's subagents, as the page read them (none while no session is open). */
export function useSessionChildren(profile: string | null, sessionId: string | null) {
  const q = sessionChildrenQuery(profile ?? '', sessionId ?? '')
  return useQuery({ ...q, ...shared, enabled: !!profile && !!sessionId }).data?.items ?? []
}

/** The session's compression chain (root first), as the page read it; null until then. */
export function useSessionChain(profile: string | null, sessionId: string | null) {
  const q = sessionDetailQuery(profile ?? '', sessionId ?? '')
  return useQuery({ ...q, ...shared, enabled: !!profile && !!sessionId }).data?.lineage.chain ?? null
}
