import { useEffect } from 'react'
import { setScope, useApp } from '../stores/app'
import { navigate } from './router'
import { NAV } from './routes'

const typing = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))

/**
 * Global keys: ⌘/Ctrl+1…9 switch profile (1 = All); `/` focuses the page's search box;
 * `g` then a page key (s, a, c, m, g, ,) jumps between pages.
 */
export function useGlobalKeys(): void {
  useEffect(() => {
    let pendingG = 0
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && /^[1-9]$/.test(e.key)) {
        const i = Number(e.key) - 1
        const names = ['all', ...useApp.getState().profiles.map((p) => p.name)]
        if (names[i]) { e.preventDefault(); setScope(names[i]!) }
        return
      }
      if (e.metaKey || e.ctrlKey || e.altKey || typing(e.target)) return
      if (e.key === '/') {
        const el = document.querySelector<HTMLElement>('[data-search-target]')
        if (el) { e.preventDefault(); el.focus() }
        return
      }
      if (pendingG && Date.now() - pendingG < 1200) {
        pendingG = 0
        const target = NAV.find((n) => n.key === e.key)
        if (target) { e.preventDefault(); navigate(`#/${target.page}`) }
        return
      }
      if (e.key === 'g') pendingG = Date.now()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
