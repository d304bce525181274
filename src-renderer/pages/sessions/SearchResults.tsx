import { useEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { navigate } from '../../app/router'
import { sessionHref } from '../../app/routes'
import { Badge } from '../../components/Badge'
import { RelTime } from '../../components/RelTime'
import { Snippet } from '../../components/Snippet'
import { useListKeys } from '../../lib/use-list-keys'
import { useApp } from '../../stores/app'
import { useSessions } from '../../stores/sessions'

/** Full-text hits; each opens the transcript scrolled to and highlighting that message. j/k and Enter work here too. */
export function SearchResults() {
  const { hits, loading, error, query } = useSessions(useShallow((s) => s.search))
  const showProfile = useApp((s) => s.scope === 'all')
  const [cursor, setCursor] = useState(-1)
  const list = useRef<HTMLUListElement>(null)
  useEffect(() => setCursor(-1), [hits])
  useListKeys({
    count: hits.length, cursor,
    setCursor: (i) => {
      setCursor(i)
      list.current?.children[i]?.scrollIntoView({ block: 'nearest' })
    },
    open: (i) => { const h = hits[i]; if (h) navigate(sessionHref(h.profile, h.sessionId, h.messageId)) }
  })
  if (error) return <div className="empty" role="alert">Search failed: {error}</div>
  if (!loading && !hits.length) return <div className="empty" data-testid="search-empty">No messages match “{query.trim()}”.</div>
  const sessions = new Set(hits.map((h) => `${h.profile}/${h.sessionId}`)).size
  return (
    <div className="hits-wrap">
      <div className="hits-summary muted small" data-testid="search-summary">
        {loading && !hits.length ? 'Searching…' : `${hits.length}${hits.length >= 50 ? '+' : ''} matching message${hits.length === 1 ? '' : 's'} in ${sessions} session${sessions === 1 ? '' : 's'}`}
        {loading && hits.length > 0 && ' · updating…'}
      </div>
      <ul className="hits" data-testid="search-results" aria-busy={loading} ref={list}>
        {hits.map((h, i) => (
          <li key={`${h.profile}/${h.sessionId}/${h.messageId}`}>
            <a className={`hit${i === cursor ? ' selected' : ''}`} href={sessionHref(h.profile, h.sessionId, h.messageId)} data-testid="search-hit"
              data-session-id={h.sessionId} data-message-id={h.messageId} data-profile={h.profile} aria-current={i === cursor || undefined}>
              <div className="hit-head">
                <span className={`row-title${h.sessionTitle ? '' : ' untitled mono'}`}>{h.sessionTitle || h.sessionId}</span>
                {showProfile && <Badge tone="accent">{h.profile}</Badge>}
                <Badge>{h.role}</Badge>
                <span className="spacer" />
                <span className="muted small"><RelTime at={h.timestamp} /></span>
              </div>
              <div className="hit-snippet"><Snippet parts={h.snippet} /></div>
            </a>
          </li>
        ))}
      </ul>
    </div>
  )
}
