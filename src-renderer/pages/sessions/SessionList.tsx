import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { navigate } from '../../app/router'
import { sessionHref } from '../../app/routes'
import { isTyping, useListKeys } from '../../lib/use-list-keys'
import { dialogOpen } from '../../components/Dialog'
import { clearSelection, clickSelect, toggleAllShown, useSelection } from '../../stores/selection'
import { useApp } from '../../stores/app'
import type { SessionSort } from '@shared/contract'
import {
  defaultDir,
  dirLabel,
  loadMoreSessions,
  resetSessionFilters,
  setSessionSort,
  useSessionRows,
  useSessions
} from '../../stores/sessions'
import { SessionRow } from './SessionRow'
import { ProfileNotices, UnreadableProfiles } from '../../components/UnreadableProfiles'

const ROW = 52

/** Virtualized, infinitely paged list; j/k or arrows move, Enter opens. */
export function SessionList() {
  const { order, byKey, nextCursor, loading, error, unavailable, notices } = useSessionRows()
  // a cross-profile list served without a profile the host could not read says so, above whatever it shows, and so
  // does one holding a profile read with a notice (a newer upstream schema)
  const unreadable = (
    <>
      <UnreadableProfiles problems={unavailable} what="This list leaves out" />
      <ProfileNotices notices={notices} />
    </>
  )
  const loadingMore = useSessions((s) => s.loadingMore)
  const scope = useApp((s) => s.scope)
  const showProfile = useApp((s) => s.scope === 'all' && s.profiles.length > 1)
  const filtered = useSessions(
    (s) =>
      s.filters.sources.length > 0 ||
      s.filters.archived !== 'exclude' ||
      s.filters.from != null ||
      s.filters.to != null ||
      s.filters.idPrefix.trim() !== ''
  )
  const checked = useSelection((s) => s.keys)
  const sort = useSessions((s) => s.filters.sort)
  const parent = useRef<HTMLDivElement>(null)
  // the cursor follows a row (by key), not a position, so live inserts above don't move it to another session
  // (the store keeps it, so it survives opening a session and coming back)
  const [selKey, setSelKey] = useState(() => {
    const kept = useSessions.getState().cursor
    return kept.scope === scope ? kept.key : ''
  })
  const sel = selKey ? order.indexOf(selKey) : -1
  const v = useVirtualizer({
    count: order.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW,
    overscan: 12,
    getItemKey: (i) => order[i] ?? i
  })
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

  // the last rendered row's index, not the row object (a new object every render)
  const lastIndex = last?.index
  useEffect(() => {
    if (lastIndex != null && nextCursor && !loadingMore && lastIndex >= order.length - 20) void loadMoreSessions()
  }, [lastIndex, nextCursor, loadingMore, order.length])

  const setCursor = (i: number) => {
    const key = order[i]
    if (!key) return
    setSelKey(key)
    useSessions.setState({ cursor: { scope, key } })
    v.scrollToIndex(i)
  }
  useListKeys({
    count: order.length,
    cursor: sel,
    setCursor,
    open: (i) => {
      const s = byKey[order[i] ?? '']
      if (s) navigate(sessionHref(s.profile, s.id))
    }
  })

  // Space toggles the focused row's selection (the row holding focus, else the keyboard cursor's row);
  // Escape clears the selection. Both stay out of text fields and dialogs.
  const keys = useRef({ order, sel })
  keys.current = { order, sel }
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || isTyping(e.target) || dialogOpen()) return
      if (e.key === 'Escape' && useSelection.getState().keys.size) {
        e.preventDefault()
        clearSelection()
      } else if (e.key === ' ') {
        // only from the list itself (a row, the list, or nothing focused): Space on a button still presses it
        const t = e.target instanceof Element ? e.target : null
        if (t && t !== document.body && !t.closest('[data-row-key], [data-testid="session-list"]')) return
        const focused =
          (e.target instanceof Element && e.target.closest<HTMLElement>('[data-row-key]')?.dataset.rowKey) || ''
        const key = focused || keys.current.order[keys.current.sel] || ''
        if (!key) return
        e.preventDefault()
        clickSelect(key, e.shiftKey)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])

  if (error && !order.length)
    return (
      <div className="empty" role="alert" data-testid="sessions-error">
        Could not load sessions: {error}
      </div>
    )
  if (!loading && !order.length) {
    return (
      <>
        {unreadable}
        <div className="empty" data-testid="sessions-empty">
          {filtered ? (
            <>
              No sessions match these filters.{' '}
              <button className="link" onClick={() => void resetSessionFilters()} data-testid="clear-filters">
                Clear filters
              </button>
            </>
          ) : scope === 'all' ? (
            'No sessions yet. Start a new chat from a profile in the rail.'
          ) : (
            `No sessions in ${scope} yet.`
          )}
        </div>
      </>
    )
  }
  return (
    <div className="list-wrap">
      {unreadable}
      <div className="list-head-shell">
        <label className="row-check">
          <SelectAll order={order} checked={checked} />
        </label>
        {/* the column heads sort the list (the host sorts: every page continues the order); Tokens and Started,
            which have no column of their own, take the Msgs and Active columns while the list is sorted by them */}
        <div className="list-head" role="group" aria-label="Sort sessions by column">
          <SortHead sort="title" label="Session" />
          <span aria-hidden>Model</span>
          {sort === 'tokens' ? (
            <SortHead sort="tokens" label="Tokens" num />
          ) : (
            <SortHead sort="messages" label="Msgs" num />
          )}
          {sort === 'started' ? <SortHead sort="started" label="Started" /> : <SortHead sort="active" label="Active" />}
          <SortHead sort="cost" label="Cost" num />
        </div>
      </div>
      <div
        ref={parent}
        className="vlist"
        tabIndex={0}
        onScroll={onScroll}
        data-testid="session-list"
        aria-busy={loading}
        role="region"
        aria-label="Sessions"
      >
        {/* a list of links (not a listbox): each row is a real link, the keyboard cursor is aria-current */}
        <div style={{ height: v.getTotalSize(), position: 'relative' }} role="list" aria-label="Sessions">
          {items.map((it) => {
            const s = byKey[order[it.index]!]
            if (!s) return null
            return (
              <div
                key={it.key}
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: ROW,
                  transform: `translateY(${it.start}px)`
                }}
                role="listitem"
              >
                <SessionRow
                  s={s}
                  sort={sort}
                  selected={sel === it.index}
                  checked={checked.has(order[it.index]!)}
                  onCheck={clickSelect}
                  showProfile={showProfile}
                />
              </div>
            )
          })}
        </div>
        {(loading || loadingMore) && <div className="list-foot muted">Loading…</div>}
      </div>
    </div>
  )
}

/** "Select all shown": checked when every shown row is, mixed when some are. */
function SelectAll({ order, checked }: { order: string[]; checked: ReadonlySet<string> }) {
  const box = useRef<HTMLInputElement>(null)
  const n = order.filter((k) => checked.has(k)).length
  useEffect(() => {
    if (box.current) box.current.indeterminate = n > 0 && n < order.length
  }, [n, order.length])
  return (
    <input
      ref={box}
      type="checkbox"
      aria-label="Select all shown"
      data-testid="select-all"
      checked={order.length > 0 && n === order.length}
      onChange={toggleAllShown}
    />
  )
}

/** A column head that sorts the list by its column; again, the other way. Says its state in words, not only arrows. */
function SortHead({ sort, label, num }: { sort: SessionSort; label: string; num?: boolean }) {
  const cur = useSessions((s) => s.filters.sort)
  const curDir = useSessions((s) => s.filters.dir ?? defaultDir(s.filters.sort))
  const active = cur === sort
  return (
    <button
      className={`sort-head${num ? ' num' : ''}${active ? ' active' : ''}`}
      data-testid={`sort-head-${sort}`}
      data-dir={active ? curDir : undefined}
      aria-pressed={active}
      onClick={() => void setSessionSort(sort)}
    >
      {label}
      {active && <span aria-hidden>{curDir === 'asc' ? ' ↑' : ' ↓'}</span>}
      {active && <span className="sr-only">, {dirLabel(sort, curDir)}</span>}
    </button>
  )
}
