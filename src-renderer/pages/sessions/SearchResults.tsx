import { useShallow } from 'zustand/react/shallow'
import { sessionHref } from '../../app/routes'
import { Badge } from '../../components/Badge'
import { RelTime } from '../../components/RelTime'
import { Snippet } from '../../components/Snippet'
import { useSessions } from '../../stores/sessions'

/** Full-text hits; each opens the transcript scrolled to and highlighting that message. */
export function SearchResults() {
  const { hits, loading, error, query } = useSessions(useShallow((s) => s.search))
  if (error) return <div className="empty" role="alert">Search failed: {error}</div>
  if (!loading && !hits.length) return <div className="empty" data-testid="search-empty">No messages match “{query.trim()}”.</div>
  return (
    <ul className="hits" data-testid="search-results" aria-busy={loading}>
      {hits.map((h) => (
        <li key={`${h.profile}/${h.sessionId}/${h.messageId}`}>
          <a className="hit" href={sessionHref(h.profile, h.sessionId, h.messageId)} data-testid="search-hit"
            data-session-id={h.sessionId} data-message-id={h.messageId} data-profile={h.profile}>
            <div className="hit-head">
              <span className="row-title">{h.sessionTitle || h.sessionId}</span>
              <Badge tone="accent">{h.profile}</Badge>
              <Badge>{h.role}</Badge>
              <span className="muted"><RelTime at={h.timestamp} /></span>
            </div>
            <div className="hit-snippet"><Snippet parts={h.snippet} /></div>
          </a>
        </li>
      ))}
    </ul>
  )
}
