/**
 * Server state: one TanStack Query cache for every host read. A query's key is the request name plus its input
 * (`['costs.summary', { profile, days }]`), so a view asks for exactly the data it shows and two views asking the
 * same thing share one fetch. Host events never refetch here directly: the bridge invalidates keys, and only
 * queries a mounted view observes refetch (what the old per-store watcher counts did by hand).
 */
import {
  matchQuery,
  QueryCache,
  QueryClient,
  queryOptions,
  type QueryFilters,
  type QueryKey
} from '@tanstack/react-query'
import { CaduceusError, type RequestInput, type RequestName, type RequestOutput } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'

declare module '@tanstack/react-query' {
  interface Register {
    /**
     * `errorContext` names what the user was doing; a failed read toasts "<context>: <message>" — except a
     * `not_found` where `quietNotFound` says the view shows that itself (a deleted session's page), and any failure
     * of a `silent` read (a part of a page that keeps what it showed, refetched on every event).
     */
    queryMeta: { errorContext?: string; quietNotFound?: boolean; silent?: boolean }
  }
}

/** The host says what was asked for does not exist (a wrong id, a deleted session, another profile's). */
export const isNotFound = (err: unknown): boolean => err instanceof CaduceusError && err.code === 'not_found'

export const queryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (err, query) => {
      if (query.meta?.silent) return
      if (query.meta?.quietNotFound && isNotFound(err)) return
      reportError(err, query.meta?.errorContext)
    }
  }),
  defaultOptions: {
    // The host pushes changes as events; the bridge invalidates. No polling, focus refetches or silent retries.
    queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false, staleTime: 0 }
  }
})

export type RequestKey<K extends RequestName> = readonly [K, RequestInput<K>]

export const requestKey = <K extends RequestName>(name: K, input: RequestInput<K>): RequestKey<K> => [name, input]

/** Every cached read of one request, whatever its input (for invalidation). */
export const requestPrefix = (name: RequestName): QueryKey => [name]

/** The cached input of a request key (for invalidation predicates). */
export function keyInput<K extends RequestName>(key: QueryKey): RequestInput<K> {
  return key[1] as RequestInput<K>
}

/** Query options for one host request: key = request + input, fetch = the contract client. */
export function requestQuery<K extends RequestName>(name: K, input: RequestInput<K>, errorContext: string) {
  return queryOptions({
    queryKey: requestKey(name, input),
    queryFn: () => (getApi().call as (n: K, i: RequestInput<K>) => Promise<RequestOutput<K>>)(name, input),
    meta: { errorContext }
  })
}

/** A read fetched now, resolved once it settled: a failure has already toasted (the cache's onError). */
export const settled = (read: Promise<unknown>): Promise<void> =>
  read.then(
    () => undefined,
    () => undefined
  )

/**
 * One pass for a burst: the first call schedules `job` for the next task, calls until it starts join it, and
 * calls while it runs collapse into one more pass after it. A burst of N events costs one or two passes, not N.
 * Each call resolves once a pass that started after it has finished.
 */
export function coalesce(job: () => Promise<void>): () => Promise<void> {
  const pass: { queued: Promise<void> | null; running: Promise<void> | null } = { queued: null, running: null }
  const start = (): Promise<void> =>
    new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
      pass.queued = null
      const run = job()
        .catch(() => undefined)
        .finally(() => {
          if (pass.running === run) pass.running = null
        })
      pass.running = run
      return run
    })
  return () => {
    if (pass.queued) return pass.queued
    pass.queued = pass.running ? pass.running.then(start) : start()
    return pass.queued
  }
}

/** Filters marked stale since the last pass of `refetchStale`; the pass refetches the ones on screen. */
const staleSince: QueryFilters[] = []
const refetchStale = coalesce(async () => {
  const filters = staleSince.splice(0)
  // one refetch per query however many filters named it
  await queryClient.refetchQueries({ type: 'active', predicate: (q) => filters.some((f) => matchQuery(f, q)) })
})

/**
 * What a host event does to cached reads: the matching queries go stale now (a view mounted later refetches),
 * and the ones on screen refetch once the burst of events is through (one fetch per burst, not per event).
 */
export function invalidateSoon(filters: QueryFilters): Promise<void> {
  void queryClient.invalidateQueries({ ...filters, refetchType: 'none' })
  staleSince.push(filters)
  return refetchStale()
}
