import { useEffect, useMemo, useRef, useState } from 'react'
import type { SessionSummary } from '@shared/contract'
import { getApi } from '../../api'
import { setScope, useApp } from '../../stores/app'
import { runSearch } from '../../stores/sessions'
import { navigate } from '../router'
import type { Route } from '../routes'
import { cycleTheme } from '../theme'
import { buildCommands } from './commands'
import { shortId } from '../../lib/format'

/**
 * Ctrl/⌘+K: a modal dialog with an ARIA combobox over one listbox of pages, actions and sessions (titles
 * across every profile). ↑/↓ move, Enter runs, Escape closes; focus returns to where it was.
 */
export function CommandPalette({ route, onClose }: { route: Route; onClose: () => void }) {
  const [q, setQ] = useState('')
  const [active, setActive] = useState(0)
  const [sessions, setSessions] = useState<SessionSummary[]>([])
  const profiles = useApp((s) => s.profiles)
  const input = useRef<HTMLInputElement>(null)
  const list = useRef<HTMLUListElement>(null)

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    input.current?.focus()
    let live = true
    getApi()
      .call('sessions.list', { profile: 'all', limit: 500, archived: 'include' })
      .then((page) => {
        if (live) setSessions(page.items)
      })
      .catch(() => {
        /* the palette still offers pages and actions */
      })
    return () => {
      live = false
      if (opener?.isConnected) opener.focus()
    }
  }, [])

  const items = useMemo(
    () =>
      buildCommands(
        {
          route,
          profiles: profiles.map((p) => p.name),
          sessions,
          navigate: (h) => navigate(h),
          setScope,
          cycleTheme,
          searchMessages: (text) => {
            navigate('#/sessions')
            void runSearch(text)
          },
          focusComposer: () => document.querySelector<HTMLElement>('[data-testid="composer-input"]')?.focus()
        },
        q
      ),
    [route, profiles, sessions, q]
  )
  useEffect(() => {
    setActive(0)
  }, [q])
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' })
  }, [active])

  const run = (i: number) => {
    const c = items[i]
    if (!c) return
    onClose()
    // after the dialog unmounts, so focus restoration does not steal focus from where the command goes
    setTimeout(c.run, 0)
  }
  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault()
      setActive((a) => Math.min(items.length - 1, a + 1))
    } else if (e.key === 'ArrowUp') {
      e.preventDefault()
      setActive((a) => Math.max(0, a - 1))
    } else if (e.key === 'Enter') {
      e.preventDefault()
      run(active)
    } else if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      onClose()
    } else if (e.key === 'Tab') e.preventDefault() // one control: focus stays in the dialog
  }
  // a group's heading once, where it first appears (actions named by the query come before sessions, the rest after)
  const seen = new Set<string>()
  return (
    <div
      className="dialog-backdrop palette-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose()
      }}
    >
      <div
        className="dialog palette"
        role="dialog"
        aria-modal="true"
        aria-label="Command palette"
        data-testid="command-palette"
        onKeyDown={onKey}
      >
        <input
          ref={input}
          className="palette-input"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-autocomplete="list"
          aria-activedescendant={items[active] ? `palette-opt-${active}` : undefined}
          aria-label="Type a command, page or session"
          placeholder="Go to page, run an action, open a session…"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          data-testid="palette-input"
        />
        <ul className="palette-list" id="palette-list" role="listbox" aria-label="Results" ref={list}>
          {items.map((c, i) => {
            const head = seen.has(c.group) ? null : c.group
            seen.add(c.group)
            return (
              <li
                key={c.id}
                id={`palette-opt-${i}`}
                role="option"
                aria-selected={i === active}
                data-index={i}
                data-testid="palette-option"
                data-command={c.id}
                className={`palette-opt${i === active ? ' active' : ''}`}
                onMouseMove={() => setActive(i)}
                onMouseDown={(e) => {
                  e.preventDefault()
                  run(i)
                }}
              >
                {head && (
                  <span className="palette-group" aria-hidden>
                    {head}
                  </span>
                )}
                <span className="palette-label">{c.label}</span>
                {c.date && (
                  <time className="palette-hint muted" data-testid="palette-date">
                    {c.date}
                  </time>
                )}
                {c.sessionId && (
                  <span className="palette-hint muted mono" title={c.sessionId} data-testid="palette-id">
                    {shortId(c.sessionId)}
                  </span>
                )}
                {c.hint && <span className="palette-hint muted">{c.hint}</span>}
              </li>
            )
          })}
          {!items.length && (
            <li className="muted pad-s" role="option" aria-selected="false" aria-disabled="true">
              Nothing matches “{q}”.
            </li>
          )}
        </ul>
      </div>
    </div>
  )
}
