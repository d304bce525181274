import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { Message } from '@shared/contract'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useShallow } from 'zustand/react/shallow'
import { searchTerms } from '../../lib/highlight'
import { useSessions } from '../../stores/sessions'
import { canLoadOlder, jumpToEnd, loadNewerPage, loadOlder, useTranscript } from '../../stores/transcript'
import { useMessageWindow } from '../../stores/transcript-window'
import { useTranscriptKeys } from './use-transcript-keys'
import { useSessionChain } from '../../stores/transcript-meta'
import { CompactionMarker } from './CompactionMarker'
import { turnsForSession, useTurns, type LiveTurn } from '../../stores/turns'
import { LiveTurnView } from './LiveTurnView'
import { MessageItem } from './MessageItem'
import { estimateRowHeight } from './row-estimate'
import { TurnMemoryFold } from './TurnMemoryFold'
import { TurnBadge } from './TurnBadge'
import { pairToolCalls, ToolPairsContext } from './tool-pairs'
import { summarizeTurns } from './turn-usage'
import { TurnUsage } from './TurnUsage'

const NOTHING: { ids: number[]; byId: Record<number, Message> } = { ids: [], byId: {} }

/** Up to this many messages every row is in the DOM. */
const SHORT = 40

/** How close to the end still counts as "following the conversation". */
const STICK_PX = 80

/**
 * The transcript once its first page is in (or known to be empty). Mounting the windowed list only then lets it
 * start at the newest messages: mounted while loading it would lay out the oldest rows of the page first and
 * then scroll, building (and parsing the Markdown of) a screenful of rows nobody sees.
 */
// memo: the page around it re-renders as each of its details arrives (transcript-meta.ts); the transcript only
// changes with its own store and window
export const Transcript = memo(function Transcript({ profile, sessionId }: { profile: string; sessionId: string }) {
  // until the store has switched to this session it still holds the previous one: don't lay that out again
  const other = useTranscript((s) => s.profile !== profile || s.sessionId !== sessionId)
  // no window yet: its first page is on its way (a failed one leaves an empty window)
  const loading = !useMessageWindow(profile, sessionId, () => true)
  // a turn already streaming into this session shows at once, page or not
  const live = useTurns((s) => turnsForSession(s, profile, sessionId).length > 0)
  if (other || (loading && !live))
    return (
      <div className="transcript-wrap">
        <div className="transcript" data-testid="transcript" aria-busy>
          <div className="muted pad-s" data-testid="transcript-loading">
            Loading transcript…
          </div>
        </div>
      </div>
    )
  return <TranscriptList key={`${profile}/${sessionId}`} profile={profile} sessionId={sessionId} />
})

/**
 * Windowed transcript: only visible messages are in the DOM, heights measured as they render.
 * Keeps the reader's place when older pages load in front, follows new output while the reader is at the
 * bottom (only scrolling up stops that, not rows growing as they are measured), and centres a search hit.
 */
function TranscriptList({ profile, sessionId }: { profile: string; sessionId: string }) {
  const { loadingOlder, focusId, failed } = useTranscript(
    useShallow((s) => ({
      loadingOlder: s.loadingOlder,
      focusId: s.focusId,
      // the first page was refused (a locked or unreadable state.db): the page names why above; nothing here is known
      failed: s.profile === profile && s.sessionId === sessionId && s.error != null
    }))
  )
  const win = useMessageWindow(profile, sessionId)
  // no window yet: the first page is on its way (a live turn shows meanwhile)
  const loading = !win
  const { ids, byId } = win ?? NOTHING
  const hasMoreBefore = canLoadOlder(win, focusId)
  const hasMoreAfter = !!win?.hasMoreAfter
  const olderCount = win?.olderSegments.length ?? 0
  const chain = useSessionChain(profile, sessionId)
  const turns = useTurns(useShallow((s) => turnsForSession(s, profile, sessionId)))
  const query = useSessions((s) => s.search.query)
  const terms = useMemo(() => (focusId != null ? searchTerms(query) : []), [focusId, query])
  const scroller = useRef<HTMLDivElement>(null)
  const inner = useRef<HTMLDivElement>(null)
  const sizer = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const lastTop = useRef(0)
  const userInput = useRef(0)
  const markUser = () => {
    userInput.current = Date.now()
  }
  const focusedDone = useRef<number | null>(null)
  const [showJump, setShowJump] = useState(false)
  const [margin, setMargin] = useState(0)

  // a turn's badge sits above the first message it saved, once that message is loaded
  const anchors = useMemo(() => {
    const map = new Map<number, LiveTurn>()
    for (const t of turns) {
      const first = t.savedMessageIds.find((id) => byId[id])
      if (first != null) map.set(first, t)
    }
    return map
  }, [turns, byId])
  const pairs = useMemo(() => pairToolCalls(byId), [byId])
  // a result shows inside its call (MessageItem's ToolCallView); on its own only when it is the hit
  const inCall = (m: Message) => m.role === 'tool' && pairs.paired.has(m.id) && m.id !== focusId
  const turnSums = useMemo(() => summarizeTurns(ids, byId, pairs), [ids, byId, pairs])
  const anchoredIds = new Set([...anchors.values()].map((t) => t.turnId))
  const tail = turns.filter((t) => t.status === 'running' || !anchoredIds.has(t.turnId))

  // stable per ids: a new function each render makes the virtualizer rebuild every row's measurement
  const getItemKey = useCallback((i: number) => ids[i] ?? i, [ids])
  const focusRef = useRef(focusId)
  focusRef.current = focusId
  const following = () => stick.current && (focusRef.current == null || focusedDone.current === focusRef.current)
  const v = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => estimateRowHeight(byId[ids[i]!]),
    // A short transcript is rendered whole (cheap, and find-in-page sees all of it); a long one keeps a few
    // rows either side of the screen.
    overscan: ids.length <= SHORT ? SHORT : 4,
    // Open at the newest messages, or around the search hit to be centred: the first frame lays out the rows
    // the reader will see, sized as if the viewport were the window until the scroller is measured.
    initialOffset: () => {
      const at = focusRef.current == null ? ids.length : ids.indexOf(focusRef.current)
      const above = ids.slice(0, Math.max(0, at)).reduce((sum, id) => sum + estimateRowHeight(byId[id]), 0)
      return Math.max(0, above - (focusRef.current == null ? window.innerHeight : window.innerHeight / 2))
    },
    initialRect: { width: 0, height: window.innerHeight },
    // the "load older" button sits above the rows: offsets must count it
    scrollMargin: margin,
    getItemKey
  })
  // Pinned to the end we re-pin ourselves; the virtualizer's "keep the view steady" nudges would pull us off it.
  v.shouldAdjustScrollPositionOnItemSizeChange = () => !following()
  useLayoutEffect(() => {
    setMargin(sizer.current?.offsetTop ?? 0)
  }, [hasMoreBefore])

  const empty = !loading && !ids.length && !tail.length
  const toBottom = () => {
    const el = scroller.current
    if (el) el.scrollTop = el.scrollHeight
  }

  // Content grows as rows are measured and as a turn streams: stay pinned to the end while following.
  useLayoutEffect(() => {
    const el = inner.current
    if (!el || typeof ResizeObserver === 'undefined') return
    const ro = new ResizeObserver(() => {
      if (following()) toBottom()
    })
    ro.observe(el)
    // the viewport shrinks too (the header gains a lineage line, the composer grows): stay pinned then as well
    if (scroller.current) ro.observe(scroller.current)
    return () => ro.disconnect()
    // reads refs only: re-attach only when the content element itself comes or goes
  }, [empty])
  const totalSize = v.getTotalSize()
  useLayoutEffect(() => {
    if (following()) toBottom()
    // re-pin when rows, the live tail or their measured height change
  }, [ids.length, tail.length, focusId, totalSize])

  useEffect(() => {
    if (focusId == null || focusedDone.current === focusId) return
    const idx = ids.indexOf(focusId)
    if (idx < 0) return
    focusedDone.current = focusId
    stick.current = false
    v.scrollToIndex(idx, { align: 'center' })
  }, [focusId, ids, v])

  const segmentStartReached = !win?.hasMoreBefore
  const hasRows = ids.length > 0
  // Read at check time, never a reason to re-check (a finished older page must not chain into the next segment).
  const atCheck = useRef({ loadingOlder, focusId })
  atCheck.current = { loadingOlder, focusId }
  useEffect(() => {
    const { loadingOlder: busy, focusId: focused } = atCheck.current
    if (olderCount > 0 && segmentStartReached && hasRows && !loading && !busy && focused == null) void loadOlder() // no re-anchoring: the reader stays where they are
  }, [olderCount, segmentStartReached, hasRows, loading])

  // The row the reader was on when an older page was asked for, re-applied before the page paints with the
  // rows added above it: a scrollToIndex after the fact let one frame show the new top rows, then jumped.
  const keepRow = useRef<{ id: number; within: number } | null>(null)
  const older = async () => {
    // the row at the top of the screen now, from scrollTop: the virtualizer's own range still describes where the
    // scroll came from (a jump to the top read the bottom rows as the anchor and threw the reader back there)
    const el = scroller.current
    const top = el ? v.getVirtualItemForOffset(el.scrollTop) : undefined
    const id = top ? ids[top.index] : undefined
    if (keepRow.current) return // a page is on its way (scroll events outrun the render that says so)
    keepRow.current = id != null && el && top ? { id, within: el.scrollTop - top.start } : null
    if (!(await loadOlder())) keepRow.current = null
  }
  useLayoutEffect(() => {
    const keep = keepRow.current
    const idx = keep ? ids.indexOf(keep.id) : -1
    if (keep && idx < 0) keepRow.current = null // another transcript now
    if (!keep || idx <= 0) return // not prepended yet
    keepRow.current = null
    const at = v.getOffsetForIndex(idx, 'start')?.[0]
    if (scroller.current && at != null) scroller.current.scrollTop = at + keep.within
  }, [ids, v])

  const onScroll = () => {
    const el = scroller.current
    if (!el) return
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight
    // newest messages not loaded (after Home or a search hit): the next page as the reader nears the end
    if (hasMoreAfter) {
      stick.current = false
      if (distance < el.clientHeight && !loading) void loadNewerPage()
    }
    // Only the reader moving up un-sticks. Rows being measured also move scrollTop (the virtualizer keeps
    // the view steady), so a move counts only right after a wheel, touch, key or pointer on the transcript.
    const byUser = Date.now() - userInput.current < 600
    const movedUp = el.scrollTop < lastTop.current - 2
    if (distance < STICK_PX && !hasMoreAfter) stick.current = true
    // A move up that leaves the last screen un-sticks whoever made it (find-in-page, a scrollbar, a script):
    // while following, measurement never moves scrollTop (see shouldAdjustScrollPositionOnItemSizeChange).
    else if (movedUp && (byUser || distance > el.clientHeight)) stick.current = false
    lastTop.current = el.scrollTop
    setShowJump(!stick.current && distance > el.clientHeight)
    if (el.scrollTop < 200 && hasMoreBefore && !loadingOlder && !loading && focusId == null) void older()
  }

  useTranscriptKeys({
    ids,
    skip: (id) => {
      const m = byId[id]
      return !m || inCall(m)
    },
    v,
    scroller,
    setFollowing: (on) => {
      stick.current = on
      if (!on) focusedDone.current = focusRef.current
    },
    toBottom
  })

  const jump = () => {
    stick.current = true
    setShowJump(false)
    toBottom()
  }

  if (empty)
    return (
      <div className="transcript empty" data-testid="transcript">
        {failed ? 'The messages could not be read.' : 'No messages yet.'}
      </div>
    )
  return (
    <ToolPairsContext.Provider value={pairs}>
      <div className="transcript-wrap">
        <div
          className="transcript"
          ref={scroller}
          onScroll={onScroll}
          onWheel={markUser}
          onTouchMove={markUser}
          onKeyDown={markUser}
          onPointerDown={markUser}
          data-testid="transcript"
          aria-busy={loading}
          tabIndex={-1}
        >
          <div ref={inner}>
            {hasMoreBefore && (
              <button
                className="load-more"
                onClick={() => void older()}
                disabled={loadingOlder}
                data-testid="load-older"
              >
                {loadingOlder ? 'Loading…' : 'Load older messages'}
              </button>
            )}
            {loading && !ids.length && (
              <div className="muted pad-s" data-testid="transcript-loading">
                Loading transcript…
              </div>
            )}
            <div ref={sizer} style={{ height: v.getTotalSize(), position: 'relative' }}>
              {v.getVirtualItems().map((it) => {
                const m = byId[ids[it.index]!]
                if (!m) return null
                const t = anchors.get(m.id)
                const focused = m.id === focusId
                const prev = it.index > 0 ? byId[ids[it.index - 1]!] : undefined
                const newSegment = !!prev && prev.sessionId !== m.sessionId && !!chain
                const nested = inCall(m)
                return (
                  <div
                    key={it.key}
                    data-index={it.index}
                    ref={v.measureElement}
                    className="vrow"
                    style={{
                      position: 'absolute',
                      top: 0,
                      left: 0,
                      right: 0,
                      transform: `translateY(${it.start - margin}px)`
                    }}
                  >
                    {newSegment && <CompactionMarker profile={profile} chain={chain!} segmentId={m.sessionId} />}
                    {t && <TurnBadge t={t} />}
                    {nested ? (
                      <div data-testid="paired-result" data-message-id={m.id} />
                    ) : (
                      <MessageItem m={m} focused={focused} terms={focused ? terms : undefined} />
                    )}
                    {turnSums.has(m.id) && <TurnUsage t={turnSums.get(m.id)!} />}
                    <TurnMemoryFold m={m} profile={profile} />
                  </div>
                )
              })}
            </div>
            {hasMoreAfter && (
              <div className="muted pad-s" data-testid="more-after">
                Newer messages exist —{' '}
                <button
                  className="link"
                  onClick={() => {
                    stick.current = true
                    void jumpToEnd()
                  }}
                  data-testid="jump-to-latest"
                >
                  jump to latest
                </button>{' '}
                (End)
              </div>
            )}
            {tail.map((t) => (
              <LiveTurnView key={t.turnId} t={t} showBadge={!anchoredIds.has(t.turnId)} />
            ))}
          </div>
        </div>
        {showJump && !hasMoreAfter && (
          <button className="jump-latest small" onClick={jump} data-testid="jump-latest">
            ↓ Latest
          </button>
        )}
      </div>
    </ToolPairsContext.Provider>
  )
}
