import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { MemoryEventKind } from '@shared/contract'
import { RelTime } from '../../components/RelTime'
import { useDebouncedEffect } from '../../lib/use-debounced'
import { loadOlderMemoryEvents, setMemoryFilters, useMemory } from '../../stores/memory'
import { SessionName } from '../../components/SessionName'

const KINDS = MemoryEventKind.options

/** Live memory activity (recalls, writes, hooks, refusals) with filters; each event links to its session. */
export function MemoryFeed() {
  const { filters, order, byId, hasMore, loading, providers } = useMemory(
    useShallow((s) => ({
      filters: s.filters,
      order: s.order,
      byId: s.byId,
      hasMore: s.hasMore,
      loading: s.loading,
      providers: s.knownProviders
    }))
  )
  const [session, setSession] = useState(filters.sessionId)
  const filtered = filters.kinds.length > 0 || !!filters.provider || !!filters.sessionId.trim() || filters.refusalsOnly
  useDebouncedEffect(session, 300, (v) => void setMemoryFilters({ sessionId: v }))
  return (
    <section className="panel feed" data-testid="memory-feed">
      <div className="toolbar">
        <select
          aria-label="Kind"
          value={filters.kinds[0] ?? ''}
          data-testid="memory-filter-kind"
          onChange={(e) => void setMemoryFilters({ kinds: e.target.value ? [e.target.value as MemoryEventKind] : [] })}
        >
          <option value="">All kinds</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <select
          aria-label="Provider"
          value={filters.provider}
          data-testid="memory-filter-provider"
          onChange={(e) => void setMemoryFilters({ provider: e.target.value })}
        >
          <option value="">All providers</option>
          {providers.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <input
          placeholder="session id"
          value={session}
          onChange={(e) => setSession(e.target.value)}
          className="mono"
          size={14}
          data-testid="memory-filter-session"
          aria-label="Session id"
        />
        <label className="field-inline">
          <input
            type="checkbox"
            checked={filters.refusalsOnly}
            onChange={(e) => void setMemoryFilters({ refusalsOnly: e.target.checked })}
            data-testid="memory-filter-refusals"
          />{' '}
          refusals only
        </label>
      </div>
      {!order.length ? (
        <div className="empty" data-testid="memory-feed-empty">
          {loading
            ? 'Loading…'
            : filtered
              ? 'No memory events match these filters.'
              : 'No memory activity yet. Recalls, writes and hooks show here as turns run.'}
        </div>
      ) : (
        <ul className="events">
          {order.map((id) => {
            const e = byId[id]!
            return (
              <li
                key={id}
                className={`event${e.ok ? '' : ' failed'} kind-${e.kind}`}
                data-testid="memory-event"
                data-profile={e.profile}
                data-kind={e.kind}
                data-event-id={e.id}
              >
                <span className="muted ev-time">
                  <RelTime at={e.at} />
                </span>
                <span
                  className={`badge ${e.kind === 'refusal' || !e.ok ? 'badge-err' : e.kind === 'write' ? 'badge-accent' : 'badge-neutral'}`}
                >
                  {e.kind}
                </span>
                <span className="mono ev-name" title={`${e.provider}.${e.name}`}>
                  {e.provider}.{e.name}
                </span>
                <span className="ev-summary" title={e.summary}>
                  {e.summary}
                </span>
                <span className="muted small ev-profile">{e.profile}</span>
                <span className="muted small ev-latency">
                  {e.latencyMs != null ? `${Math.round(e.latencyMs)}ms` : ''}
                </span>
                {e.sessionId ? (
                  <span className="small ev-session">
                    <SessionName profile={e.profile} id={e.sessionId} testId="memory-event-session" />
                  </span>
                ) : (
                  <span />
                )}
              </li>
            )
          })}
        </ul>
      )}
      {hasMore && (
        <button className="load-more" onClick={() => void loadOlderMemoryEvents()}>
          Load older
        </button>
      )}
    </section>
  )
}
