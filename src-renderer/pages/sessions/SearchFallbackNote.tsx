import { useSearchResults } from '../../stores/sessions'

/**
 * One line under the search box when not everything was a word search: which terms a fallback answered (the
 * trigram index, Caduceus's short-text index or a complete scan), as the host's result states it.
 */
export function SearchFallbackNote() {
  const search = useSearchResults()
  const fallback = search.loading ? undefined : search.fallback
  if (!fallback) return null
  return (
    <div className="muted small search-fallback" role="note" data-testid="search-fallback">
      {fallback}
    </div>
  )
}
