import { useEffect, useMemo, useRef, useState } from 'react'
import type { SearchHit, SearchSessionGroup } from '@shared/contract'
import { navigate } from '../../app/router'
import { sessionHref } from '../../app/routes'
import { Badge } from '../../components/Badge'
import { RelTime } from '../../components/RelTime'
import { Snippet } from '../../components/Snippet'
import { SessionLabel } from '../../components/SessionName'
import { useListKeys } from '../../lib/use-list-keys'
import { useApp } from '../../stores/app'
import { useSearchResults } from '../../stores/sessions'
import { ProfileNotices, UnreadableProfiles } from '../../components/UnreadableProfiles'

/**
 * Hits grouped by conversation (first-hit order): a compression chain's segments under its tip (`chainId`), as
 * the list shows it; title-only matches after them. The flat order drives j/k.
 */
function grouped(hits: SearchHit[], groups: SearchSessionGroup[] = []) {
  const key = (p: string, id: string) => `${p}/${id}`
  const byKey = new Map<string, { group: SearchSessionGroup; hits: SearchHit[] }>()
  for (const h of hits) {
    const k = key(h.profile, h.chainId ?? h.sessionId)
    const g = byKey.get(k) ?? {
      group: groups.find((x) => key(x.profile, x.sessionId) === k) ?? {
        profile: h.profile,
        sessionId: h.chainId ?? h.sessionId,
        title: h.chainId ? null : h.sessionTitle,
        hits: 0,
        titleMatch: false
      },
      hits: []
    }
    g.hits.push(h)
    byKey.set(k, g)
  }
  const titleOnly = groups.filter((g) => !byKey.has(key(g.profile, g.sessionId)))
  const sections = [...byKey.values()]
  return { sections, titleOnly, flat: sections.flatMap((s) => s.hits) }
}

const count = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`

/**
 * What the search found: the messages and their sessions, then the sessions only a title matched. A title-only find
 * is not counted as messages ("0 matching messages in 2 sessions" above two sessions read as a contradiction).
 */
function summary(messages: number, inSessions: number, titleOnly: number): string {
  if (!messages) return `${count(titleOnly, 'session')} with a matching title; no message matches`
  const found = `${messages}${messages >= 50 ? '+' : ''} matching ${messages === 1 ? 'message' : 'messages'} in ${count(inSessions, 'session')}`
  return titleOnly ? `${found} · ${count(titleOnly, 'more session')} with a matching title` : found
}

/** Full-text hits grouped by session; each opens the transcript scrolled to and highlighting that message. j/k and Enter work here too. */
export function SearchResults() {
  const { hits: raw, loading, error, query, groups, message, unavailable, notices } = useSearchResults()
  // results served without a profile the host could not read say so, above whatever they show (and so do results
  // holding a profile read with a notice)
  const unreadable = (
    <>
      <UnreadableProfiles problems={unavailable} what="These results leave out" />
      <ProfileNotices notices={notices} />
    </>
  )
  const { sections, titleOnly, flat: hits } = useMemo(() => grouped(raw, groups), [raw, groups])
  const showProfile = useApp((s) => s.scope === 'all')
  const [cursor, setCursor] = useState(-1)
  const list = useRef<HTMLUListElement>(null)
  useEffect(() => setCursor(-1), [hits])
  useListKeys({
    count: hits.length,
    cursor,
    setCursor: (i) => {
      setCursor(i)
      list.current?.querySelectorAll('[data-testid="search-hit"]')[i]?.scrollIntoView({ block: 'nearest' })
    },
    open: (i) => {
      const h = hits[i]
      if (h) navigate(sessionHref(h.profile, h.sessionId, h.messageId))
    }
  })
  if (error)
    return (
      <div className="empty" role="alert">
        Search failed: {error}
      </div>
    )
  if (!loading && message)
    return (
      <div className="empty" role="status" data-testid="search-message">
        {message}
      </div>
    )
  if (!loading && !hits.length && !titleOnly.length)
    return (
      <>
        {unreadable}
        <div className="empty" data-testid="search-empty">
          No messages match “{query.trim()}”.
        </div>
      </>
    )
  let flatIndex = -1
  return (
    <div className="hits-wrap">
      {unreadable}
      <div className="hits-summary muted small" data-testid="search-summary">
        {loading && !hits.length ? 'Searching…' : summary(hits.length, sections.length, titleOnly.length)}
        {loading && hits.length > 0 && ' · updating…'}
      </div>
      <ul className="hits" data-testid="search-results" aria-busy={loading} ref={list}>
        {sections.map(({ group, hits: mine }) => [
          <li
            key={`g:${group.profile}/${group.sessionId}`}
            className="hit-group muted small"
            data-testid="search-group"
            data-session-id={group.sessionId}
          >
            <SessionLabel profile={group.profile} id={group.sessionId} title={group.title} at={mine[0]?.timestamp} /> ·{' '}
            {mine.length} match{mine.length === 1 ? '' : 'es'}
            {group.titleMatch ? ' · title' : ''}
          </li>,
          ...mine.map((h) => {
            const i = ++flatIndex
            return (
              <li key={`${h.profile}/${h.sessionId}/${h.messageId}`}>
                <a
                  className={`hit${i === cursor ? ' selected' : ''}`}
                  href={sessionHref(h.profile, h.sessionId, h.messageId)}
                  data-testid="search-hit"
                  data-session-id={h.sessionId}
                  data-message-id={h.messageId}
                  data-profile={h.profile}
                  aria-current={i === cursor || undefined}
                >
                  <div className="hit-head">
                    <span className={`row-title${h.sessionTitle ? '' : ' untitled'}`} title={h.sessionId}>
                      {/* a chain's hits carry the conversation's name, as their group does */}
                      <SessionLabel
                        profile={h.profile}
                        id={group.sessionId}
                        title={h.chainId ? group.title : h.sessionTitle}
                        at={h.timestamp}
                      />
                    </span>
                    {showProfile && <Badge tone="accent">{h.profile}</Badge>}
                    <Badge>{h.role}</Badge>
                    <span className="spacer" />
                    <span className="muted small">
                      <RelTime at={h.timestamp} />
                    </span>
                  </div>
                  <div className="hit-snippet">
                    <Snippet parts={h.snippet} />
                  </div>
                </a>
              </li>
            )
          })
        ])}
        {titleOnly.map((g) => (
          <li key={`t:${g.profile}/${g.sessionId}`}>
            <a
              className="hit"
              href={sessionHref(g.profile, g.sessionId)}
              data-testid="search-title-hit"
              data-session-id={g.sessionId}
            >
              <div className="hit-head">
                <span className="row-title">
                  <SessionLabel profile={g.profile} id={g.sessionId} title={g.title} />
                </span>
                {showProfile && <Badge tone="accent">{g.profile}</Badge>}
                <Badge>title</Badge>
              </div>
            </a>
          </li>
        ))}
      </ul>
    </div>
  )
}
