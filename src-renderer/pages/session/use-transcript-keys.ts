import { useEffect, useRef } from 'react'
import type { Virtualizer } from '@tanstack/react-virtual'
import { dialogOpen } from '../../components/Dialog'
import { isTyping } from '../../lib/use-list-keys'
import { jumpToEnd, jumpToStart } from '../../stores/transcript'

interface Options {
  ids: number[]
  /** Rows that are not a stop of their own (a tool result shown inside its call). */
  skip: (id: number) => boolean
  v: Virtualizer<HTMLDivElement, Element>
  scroller: React.RefObject<HTMLDivElement | null>
  /** Stop (false) or resume (true) following new output at the bottom. */
  setFollowing: (on: boolean) => void
  toBottom: () => void
}

const messageEl = (id: number) =>
  document.querySelector<HTMLElement>(`[data-testid="message"][data-message-id="${id}"]`)

/** Focus a message row once the virtualizer has rendered it (a frame or two after scrolling to it). */
function focusWhenRendered(id: number, tries = 10): void {
  const el = messageEl(id)
  if (el) return el.focus({ preventScroll: true })
  if (tries > 0) requestAnimationFrame(() => focusWhenRendered(id, tries - 1))
}

/**
 * Transcript keys, while nothing editable has focus and no dialog is open: j/k move to the next/previous message
 * (focused and scrolled into view); Home/End jump to the conversation's first/last message, reading the first
 * page directly (see `jumpToStart`) rather than paging back to it.
 */
export function useTranscriptKeys(o: Options): void {
  const cur = useRef(o)
  cur.current = o
  useEffect(() => {
    const go = (id: number, align: 'start' | 'end' | 'auto') => {
      const { ids, v } = cur.current
      const i = ids.indexOf(id)
      if (i < 0) return
      v.scrollToIndex(i, { align })
      focusWhenRendered(id)
    }
    // A window Home or End replaced reaches this view a task or two after the store has it (the query cache
    // batches its notifications): act once the rows render it.
    const whenShown = (id: number | null, then: () => void, tries = 10) => {
      if (id == null || cur.current.ids.includes(id) || tries === 0) return then()
      requestAnimationFrame(() => whenShown(id, then, tries - 1))
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || isTyping(e.target) || dialogOpen()) return
      const { ids, skip, v, scroller, setFollowing, toBottom } = cur.current
      if (e.key === 'Home') {
        e.preventDefault()
        setFollowing(false)
        void jumpToStart().then((first) => {
          if (first != null) whenShown(first, () => requestAnimationFrame(() => go(first, 'start')))
        })
      } else if (e.key === 'End') {
        e.preventDefault()
        setFollowing(true)
        void jumpToEnd().then((newest) =>
          whenShown(newest, () =>
            requestAnimationFrame(() => {
              toBottom()
              const last = cur.current.ids.findLast((id) => !cur.current.skip(id))
              if (last != null) focusWhenRendered(last)
            })
          )
        )
      } else if (e.key === 'j' || e.key === 'k') {
        const stops = ids.filter((id) => !skip(id))
        if (!stops.length) return
        e.preventDefault()
        // from the focused message, else from the one at the top of the screen
        const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-message-id]')
        let at = focused ? stops.indexOf(Number(focused.dataset.messageId)) : -1
        if (at < 0) {
          const el = scroller.current
          const top = el ? v.getVirtualItemForOffset(el.scrollTop + v.options.scrollMargin) : undefined
          const id = top ? ids[top.index] : undefined
          const near = id != null ? stops.findIndex((s) => s >= id) : -1
          at = near < 0 ? stops.length - 1 : near
          if (e.key === 'j' && stops[at]! >= (id ?? 0) && !focused) at -= 1 // the first j lands on that top row
        }
        const next = Math.max(0, Math.min(stops.length - 1, at + (e.key === 'j' ? 1 : -1)))
        setFollowing(false)
        go(stops[next]!, 'auto')
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
