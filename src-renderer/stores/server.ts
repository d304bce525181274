/**
 * Server state: one TanStack Query cache for every host read. A query's key is the request name plus its input
 * (`['costs.summary', { profile, days }]`), so a view asks for exactly the data it shows and two views asking the
 * same thing share one fetch. Host events never refetch here directly: the bridge invalidates keys, and only
 * queries a mounted view observes refetch (what the old per-store watcher counts did by hand).
 */
import { QueryCache, QueryClient, queryOptions, type QueryKey } from '@tanstack/react-query'
import type { RequestInput, RequestName, RequestOutput } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'

declare module '@tanstack/react-query' {
  interface Register {
    /** `errorContext` names what the user was doing; a failed read toasts "<context>: <message>". */
    queryMeta: { errorContext?: string }
  }
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (err, query) => void reportError(err, query.meta?.errorContext) }),
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
