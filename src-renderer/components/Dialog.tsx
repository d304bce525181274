import { useEffect, useId, useRef, type ReactNode } from 'react'

interface Props {
  title: string
  onClose: () => void
  children: ReactNode
  footer?: ReactNode
  testId?: string
  /** Destructive confirmations start on Cancel, so a stray Enter never confirms. */
  danger?: boolean
}

const FOCUSABLE =
  'a[href], button:not(:disabled), textarea:not(:disabled), input:not(:disabled), select:not(:disabled), [tabindex]:not([tabindex="-1"])'

/**
 * Modal dialog: Esc closes, Tab stays inside, the first field (or Cancel for `danger`) gets focus, clicks
 * outside close, and focus goes back to whatever opened it.
 */
export function Dialog({ title, onClose, children, footer, testId, danger }: Props) {
  const ref = useRef<HTMLDivElement>(null)
  // named by its own heading (an open modal is what axe's page-has-heading-one accepts in place of the page's h1)
  const titleId = useId()
  // onClose is usually an inline arrow: keep the latest without re-running the focus effect on every render
  const close = useRef(onClose)
  close.current = onClose
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const root = ref.current
    const first = danger
      ? root?.querySelector<HTMLElement>('[data-dialog-cancel], .dialog-foot button:not(.primary)')
      : root?.querySelector<HTMLElement>('textarea, input, select, button.primary')
    first?.focus()
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation()
        e.preventDefault()
        close.current()
        return
      }
      if (e.key !== 'Tab' || !root) return
      const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)]
      if (!items.length) return
      const i = items.indexOf(document.activeElement as HTMLElement)
      const next = e.shiftKey ? (i <= 0 ? items.length - 1 : i - 1) : i === -1 || i === items.length - 1 ? 0 : i + 1
      e.preventDefault()
      items[next]!.focus()
    }
    window.addEventListener('keydown', onKey, true)
    return () => {
      window.removeEventListener('keydown', onKey, true)
      if (opener?.isConnected) opener.focus()
    }
  }, [danger])
  return (
    <div
      className="dialog-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose()
      }}
    >
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={ref} data-testid={testId}>
        {/* plain boxes, not <header>/<footer>: outside <main> those are page landmarks (a second banner, a
            contentinfo), and a dialog opened over the shell (the shortcuts list) would add them to the page */}
        <div className="dialog-head">
          <h2 id={titleId}>{title}</h2>
        </div>
        <div className="dialog-body">{children}</div>
        {footer && <div className="dialog-foot">{footer}</div>}
      </div>
    </div>
  )
}

/** Is a modal open? Page-level shortcuts stay quiet while one is. */
export const dialogOpen = () => document.querySelector('[role="dialog"][aria-modal="true"]') != null
