import { useEffect } from 'react'
import { dialogOpen } from '../components/Dialog'
import { setScope, useApp } from '../stores/app'
import { openPalette, openShortcuts, toggleRail } from './palette/state'
import { navigate } from './router'
import { NAV } from './routes'

const typing = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))

const switchProfile = (digit: string): boolean => {
  const names = ['all', ...useApp.getState().profiles.map((p) => p.name)]
  const name = names[Number(digit) - 1]
  if (name) setScope(name)
  return !!name
}

/**
 * Global keys: ⌘/Ctrl+K palette; `?` shortcuts; ⌘/Ctrl+1…9 or `p` then 1…9 switch profile (1 = All; a browser
 * tab owns Ctrl+digits); `/` focuses the page's search box; `g` then a page key jumps between pages; Escape
 * leaves an open session; `[` folds the sidebar.
 */
export function useGlobalKeys(): void {
  useEffect(() => {
    let pendingG = 0
    let pendingP = 0
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault()
        openPalette()
        return
      }
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && /^[1-9]$/.test(e.key)) {
        if (switchProfile(e.key)) e.preventDefault()
        return
      }
      if (e.metaKey || e.ctrlKey || e.altKey || typing(e.target) || dialogOpen()) return
      if (e.key === '?') {
        e.preventDefault()
        openShortcuts()
        return
      }
      if (e.key === 'Escape' && location.hash.startsWith('#/session/')) {
        e.preventDefault()
        navigate('#/sessions')
        return
      }
      if (e.key === '/') {
        const el = document.querySelector<HTMLElement>('[data-search-target]')
        if (el) {
          e.preventDefault()
          el.focus()
        }
        return
      }
      if (e.key === '[') {
        e.preventDefault()
        toggleRail()
        return
      }
      if (pendingP && Date.now() - pendingP < 1200 && /^[1-9]$/.test(e.key)) {
        pendingP = 0
        if (switchProfile(e.key)) e.preventDefault()
        return
      }
      if (pendingG && Date.now() - pendingG < 1200) {
        pendingG = 0
        const target = NAV.find((n) => n.key === e.key)
        if (target) {
          e.preventDefault()
          navigate(`#/${target.page}`)
        }
        return
      }
      if (e.key === 'g') pendingG = Date.now()
      if (e.key === 'p') pendingP = Date.now()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
