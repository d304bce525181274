import { useEffect, useRef } from 'react'
import { dialogOpen } from '../components/Dialog'

export const isTyping = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))

interface Options {
  count: number
  /** Current cursor and how to move it (the caller owns the state so it can survive remounts). */
  cursor: number
  setCursor: (i: number) => void
  open: (i: number) => void
}

/**
 * j/k or ↓/↑ move the cursor and Enter opens, anywhere on the page while nothing editable has focus
 * and no dialog is open, so a list works from the keyboard without clicking into it first.
 */
export function useListKeys({ count, cursor, setCursor, open }: Options): void {
  const st = useRef({ count, cursor, setCursor, open })
  st.current = { count, cursor, setCursor, open }
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.altKey || isTyping(e.target) || dialogOpen()) return
      const { count: n, cursor: i, setCursor: set, open: go } = st.current
      if (!n) return
      if (e.key === 'j' || e.key === 'ArrowDown') {
        e.preventDefault()
        set(Math.min(n - 1, i < 0 ? 0 : i + 1))
      } else if (e.key === 'k' || e.key === 'ArrowUp') {
        e.preventDefault()
        set(Math.max(0, i - 1))
      } else if (
        e.key === 'Enter' &&
        i >= 0 &&
        !(e.target instanceof HTMLAnchorElement || e.target instanceof HTMLButtonElement)
      ) {
        e.preventDefault()
        go(i)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
