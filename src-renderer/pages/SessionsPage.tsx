import { useEffect, useState } from 'react'
import { SearchIcon } from '../components/icons'
import { useDebouncedEffect } from '../lib/use-debounced'
import { useApp } from '../stores/app'
import { clearSearch, reloadSessions, runSearch, useSessions, watchSessions } from '../stores/sessions'
import { SearchResults } from './sessions/SearchResults'
import { SearchFallbackNote } from './sessions/SearchFallbackNote'
import { PruneButton } from './sessions/PruneDialog'
import { ExportImportBar } from '../components/ExportImport'
import { SessionFilters, SessionLookup } from './sessions/SessionFilters'
import { SessionList } from './sessions/SessionList'
import { SelectionBar } from './sessions/SelectionBar'

export function SessionsPage() {
  const scope = useApp((s) => s.scope)
  const storedQuery = useSessions((s) => s.search.query)
  const [text, setText] = useState(storedQuery)
  useEffect(() => watchSessions(), [])
  // switching profile reloads the list (and re-runs an active search in the new scope)
  const [seenScope, setSeenScope] = useState(scope)
  useEffect(() => {
    if (scope === seenScope) return
    setSeenScope(scope)
    void reloadSessions()
    if (text.trim()) void runSearch(text)
  }, [scope, seenScope, text])
  useDebouncedEffect(text, 250, (v) => void runSearch(v))
  const searching = text.trim().length > 0

  return (
    <div className="sessions-page">
      <h1 className="sr-only">Sessions</h1>
      <div className="toolbar sessions-toolbar">
        <label className="search">
          <SearchIcon />
          <input
            type="search"
            placeholder="Search messages  ( / )"
            aria-label="Search messages"
            data-testid="search-input"
            data-search-target
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                setText('')
                clearSearch()
                ;(e.target as HTMLInputElement).blur()
              }
              if (e.key === 'Enter') void runSearch(text)
              if (e.key === 'ArrowDown') {
                // hand the keyboard to the results/list: leave the box and move the cursor to the first row
                e.preventDefault()
                ;(e.target as HTMLInputElement).blur()
                window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown' }))
              }
            }}
          />
        </label>
        <SessionLookup />
        {!searching && (
          <div className="toolbar-actions">
            <ExportImportBar scope={scope} />
            <PruneButton scope={scope} />
          </div>
        )}
        <SessionFilters />
      </div>
      {!searching && <SelectionBar />}
      {searching && <SearchFallbackNote />}
      {searching ? <SearchResults /> : <SessionList />}
    </div>
  )
}
