import { QueryObserver, type QueryKey } from '@tanstack/react-query'
import { queryClient } from '../stores/server'

/**
 * A mounted view, without React: an observer on one query, as `useQuery` keeps while a page is on screen.
 * Invalidations refetch only observed queries, so this is how a test says "the page is open".
 */
export function observe<T>(options: { queryKey: QueryKey; queryFn?: unknown }): {
  data: () => T | undefined
  off: () => void
} {
  const observer = new QueryObserver<T>(queryClient, options as never)
  const off = observer.subscribe(() => {})
  return { data: () => observer.getCurrentResult().data, off }
}
