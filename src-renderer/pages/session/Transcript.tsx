import { useEffect, useLayoutEffect, useMemo, useRef } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useShallow } from 'zustand/react/shallow'
import { loadOlder, useTranscript } from '../../stores/transcript'
import { turnsForSession, useTurns, type LiveTurn } from '../../stores/turns'
import { LiveTurnView } from './LiveTurnView'
import { MessageItem } from './MessageItem'
import { TurnBadge } from './TurnBadge'

/**
 * Windowed transcript: only visible messages are in the DOM, heights measured as they render.
 * Keeps the reader's place when older pages load in front, follows new output when already at the bottom,
 * and centres a search hit once it is loaded.
 */
export function Transcript() {
  const { profile, sessionId, ids, byId, hasMoreBefore, hasMoreAfter, loading, loadingOlder, focusId } = useTranscript(useShallow((s) => ({
    profile: s.profile, sessionId: s.sessionId, ids: s.ids, byId: s.byId, hasMoreBefore: s.hasMoreBefore, hasMoreAfter: s.hasMoreAfter,
    loading: s.loading, loadingOlder: s.loadingOlder, focusId: s.focusId
  })))
  const turns = useTurns(useShallow((s) => turnsForSession(s, profile, sessionId)))
  const scroller = useRef<HTMLDivElement>(null)
  const atBottom = useRef(true)
  const focusedDone = useRef<number | null>(null)

  // a turn's badge sits above the first message it saved, once that message is loaded
  const anchors = useMemo(() => {
    const map = new Map<number, LiveTurn>()
    for (const t of turns) {
      const first = t.savedMessageIds.find((id) => byId[id])
      if (first != null) map.set(first, t)
    }
    return map
  }, [turns, byId])
  const anchoredIds = new Set([...anchors.values()].map((t) => t.turnId))
  const tail = turns.filter((t) => t.status === 'running' || !anchoredIds.has(t.turnId))

  const v = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 72,
    overscan: 8,
    getItemKey: (i) => ids[i] ?? i
  })

  const liveSize = tail.reduce((n, t) => n + t.text.length + t.reasoning.length + t.tools.length, 0)
  useLayoutEffect(() => {
    const el = scroller.current
    // until a search hit has been scrolled into view, don't fight it by following the bottom
    if (!el || !atBottom.current || (focusId != null && focusedDone.current !== focusId)) return
    el.scrollTop = el.scrollHeight
    // rows are measured after paint; follow once more so the last line isn't cut off
    const raf = requestAnimationFrame(() => { if (atBottom.current) el.scrollTop = el.scrollHeight })
    return () => cancelAnimationFrame(raf)
  }, [ids.length, liveSize, tail.length, v.getTotalSize(), focusId])

  useEffect(() => {
    if (focusId == null || focusedDone.current === focusId) return
    const idx = ids.indexOf(focusId)
    if (idx < 0) return
    focusedDone.current = focusId
    atBottom.current = false
    v.scrollToIndex(idx, { align: 'center' })
  }, [focusId, ids, v])

  const older = async () => {
    const anchor = ids[v.getVirtualItems()[0]?.index ?? 0]
    const n = await loadOlder()
    if (n && anchor != null) {
      const idx = useTranscript.getState().ids.indexOf(anchor)
      if (idx >= 0) v.scrollToIndex(idx, { align: 'start' })
    }
  }

  const onScroll = () => {
    const el = scroller.current
    if (!el) return
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80
    if (el.scrollTop < 200 && hasMoreBefore && !loadingOlder && !loading && focusId == null) void older()
  }

  if (!loading && !ids.length && !tail.length) return <div className="transcript empty" data-testid="transcript">No messages yet.</div>
  return (
    <div className="transcript" ref={scroller} onScroll={onScroll} data-testid="transcript" aria-busy={loading} tabIndex={-1}>
      {hasMoreBefore && (
        <button className="load-more" onClick={() => void older()} disabled={loadingOlder} data-testid="load-older">
          {loadingOlder ? 'Loading…' : 'Load older messages'}
        </button>
      )}
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((it) => {
          const m = byId[ids[it.index]!]
          if (!m) return null
          const t = anchors.get(m.id)
          return (
            <div key={it.key} data-index={it.index} ref={v.measureElement} className="vrow"
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${it.start}px)` }}>
              {t && <TurnBadge t={t} />}
              <MessageItem m={m} focused={m.id === focusId} />
            </div>
          )
        })}
      </div>
      {hasMoreAfter && <div className="muted pad-s" data-testid="more-after">Newer messages exist — <a href={`#/session/${encodeURIComponent(profile ?? '')}/${encodeURIComponent(sessionId ?? '')}`}>jump to latest</a></div>}
      {tail.map((t) => <LiveTurnView key={t.turnId} t={t} showBadge={!anchoredIds.has(t.turnId)} />)}
    </div>
  )
}
