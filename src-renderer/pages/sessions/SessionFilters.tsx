import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useDebouncedEffect } from '../../lib/use-debounced'
import type { SessionSort } from '@shared/contract'
import {
  defaultDir,
  dirLabel,
  setSessionFilters,
  setSessionSort,
  SORT_LABELS,
  useSessions
} from '../../stores/sessions'

const toDay = (epoch: number | null) => (epoch == null ? '' : new Date(epoch * 1000).toISOString().slice(0, 10))
const fromDay = (v: string, endOfDay: boolean) => {
  if (!v) return null
  const t = Date.parse(`${v}T${endOfDay ? '23:59:59' : '00:00:00'}`)
  return Number.isNaN(t) ? null : Math.floor(t / 1000)
}

/**
 * Which sessions, beside the search box: an id prefix and whether child sessions are listed. The filters proper
 * (order, source, archive state, dates) take the toolbar's next line.
 */
export function SessionLookup() {
  const idPrefix = useSessions((s) => s.filters.idPrefix)
  const includeChildren = useSessions((s) => s.filters.includeChildren)
  // typed text stays local so a live refresh never overwrites what the user is typing
  const [prefix, setPrefix] = useState(idPrefix)
  useDebouncedEffect(prefix, 300, (v) => {
    if (v !== useSessions.getState().filters.idPrefix) void setSessionFilters({ idPrefix: v })
  })
  // "Clear filters" elsewhere empties the stored prefix: mirror that into the box
  useEffect(() => {
    if (idPrefix === '') setPrefix((p) => (p.trim() ? '' : p))
  }, [idPrefix])
  return (
    <div className="filters" data-testid="session-lookup">
      <input
        className="mono"
        placeholder="id prefix"
        aria-label="Session id prefix"
        data-testid="filter-id-prefix"
        value={prefix}
        onChange={(e) => setPrefix(e.target.value)}
        size={10}
      />
      <label
        className="field-inline"
        title="Subagent runs, a tool's sessions and other children upstream's list leaves out (branches are always listed)"
      >
        <input
          type="checkbox"
          data-testid="filter-include-children"
          checked={includeChildren}
          onChange={(e) => void setSessionFilters({ includeChildren: e.target.checked })}
        />{' '}
        child sessions
      </label>
    </div>
  )
}

export function SessionFilters() {
  const { filters, knownSources } = useSessions(
    useShallow((s) => ({ filters: s.filters, knownSources: s.knownSources }))
  )
  const sources = [...new Set([...knownSources, ...filters.sources])]
  const dir = filters.dir ?? defaultDir(filters.sort)
  return (
    <div className="filters" data-testid="session-filters">
      <span className="sort-pick">
        <select
          aria-label="Sort by"
          data-testid="sort-by"
          value={filters.sort}
          onChange={(e) => void setSessionSort(e.target.value as SessionSort)}
        >
          {(Object.keys(SORT_LABELS) as SessionSort[]).map((k) => (
            <option key={k} value={k}>
              {SORT_LABELS[k]}
            </option>
          ))}
        </select>
        <button
          className="small"
          data-testid="sort-dir"
          data-dir={dir}
          aria-label={`Order: ${dirLabel(filters.sort, dir)} (switch)`}
          onClick={() => void setSessionSort(filters.sort, dir === 'asc' ? 'desc' : 'asc')}
        >
          <span aria-hidden>{dir === 'asc' ? '↑' : '↓'}</span> {dirLabel(filters.sort, dir)}
        </button>
      </span>
      <select
        aria-label="Source"
        data-testid="filter-source"
        value={filters.sources[0] ?? ''}
        onChange={(e) => void setSessionFilters({ sources: e.target.value ? [e.target.value] : [] })}
      >
        <option value="">All sources</option>
        {sources.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <select
        aria-label="Archived"
        data-testid="filter-archived"
        value={filters.archived}
        onChange={(e) => void setSessionFilters({ archived: e.target.value as 'exclude' })}
      >
        <option value="exclude">Active</option>
        <option value="include">Active + archived</option>
        <option value="only">Archived only</option>
      </select>
      {/* the two dates wrap together: a range is never split across lines */}
      <span className="date-range" role="group" aria-label="Last active" data-testid="filter-dates">
        <label className="field-inline">
          From{' '}
          <input
            type="date"
            data-testid="filter-from"
            value={toDay(filters.from)}
            onChange={(e) => void setSessionFilters({ from: fromDay(e.target.value, false) })}
          />
        </label>
        <label className="field-inline">
          To{' '}
          <input
            type="date"
            data-testid="filter-to"
            value={toDay(filters.to)}
            onChange={(e) => void setSessionFilters({ to: fromDay(e.target.value, true) })}
          />
        </label>
      </span>
    </div>
  )
}
