import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useShallow } from 'zustand/react/shallow'
import { navigate } from '../../app/router'
import { sessionHref } from '../../app/routes'
import { useApp } from '../../stores/app'
import { loadMoreSessions, useSessions } from '../../stores/sessions'
import { SessionRow } from './SessionRow'

const ROW = 52

/** Virtualized, infinitely paged list; j/k or arrows move, Enter opens. */
export function SessionList() {
  const { order, byKey, nextCursor, loading, loadingMore, error } = useSessions(useShallow((s) => ({
    order: s.order, byKey: s.byKey, nextCursor: s.nextCursor, loading: s.loading, loadingMore: s.loadingMore, error: s.error
  })))
  const showProfile = useApp((s) => s.scope === 'all' && s.profiles.length > 1)
  const parent = useRef<HTMLDivElement>(null)
  const [sel, setSel] = useState(0)
  const v = useVirtualizer({ count: order.length, getScrollElement: () => parent.current, estimateSize: () => ROW, overscan: 12, getItemKey: (i) => order[i] ?? i })
  const items = v.getVirtualItems()
  const last = items[items.length - 1]

  // Live refreshes splice rows in above; keep the row the user is looking at where it was.
  const anchor = useRef<{ key: string; offset: number } | null>(null)
  const onScroll = () => {
    const el = parent.current
    if (!el) return
    const i = Math.floor(el.scrollTop / ROW)
    anchor.current = el.scrollTop > 0 && order[i] ? { key: order[i]!, offset: el.scrollTop - i * ROW } : null
  }
  useLayoutEffect(() => {
    const el = parent.current
    const a = anchor.current
    if (!el || !a) return
    const idx = order.indexOf(a.key)
    if (idx >= 0 && Math.floor(el.scrollTop / ROW) !== idx) el.scrollTop = idx * ROW + a.offset
  }, [order])

  useEffect(() => {
    if (last && nextCursor && !loadingMore && last.index >= order.length - 20) void loadMoreSessions()
  }, [last?.index, nextCursor, loadingMore, order.length])

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); setSel((i) => { const n = Math.min(order.length - 1, i + 1); v.scrollToIndex(n); return n }) }
    else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); setSel((i) => { const n = Math.max(0, i - 1); v.scrollToIndex(n); return n }) }
    else if (e.key === 'Enter') {
      const s = byKey[order[sel] ?? '']
      if (s) { e.preventDefault(); navigate(sessionHref(s.profile, s.id)) }
    }
  }

  if (error && !order.length) return <div className="empty" role="alert" data-testid="sessions-error">Could not load sessions: {error}</div>
  if (!loading && !order.length) return <div className="empty" data-testid="sessions-empty">No sessions match these filters.</div>
  return (
    <div className="list-wrap">
      <div className="list-head" aria-hidden>
        <span>Session</span><span>Model</span><span className="num">Msgs</span><span>Active</span><span className="num">Cost</span>
      </div>
      <div ref={parent} className="vlist" tabIndex={0} onKeyDown={onKey} onScroll={onScroll} data-testid="session-list" aria-busy={loading} role="listbox" aria-label="Sessions">
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {items.map((it) => {
            const s = byKey[order[it.index]!]
            if (!s) return null
            return (
              <div key={it.key} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${it.start}px)` }} role="option" aria-selected={sel === it.index}>
                <SessionRow s={s} selected={sel === it.index} showProfile={showProfile} />
              </div>
            )
          })}
        </div>
        {(loading || loadingMore) && <div className="list-foot muted">Loading…</div>}
      </div>
    </div>
  )
}
