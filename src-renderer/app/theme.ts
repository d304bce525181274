import { useEffect } from 'react'
import { setTheme, useApp, type ThemeChoice } from '../stores/app'

const KEY = 'caduceus.theme'

export function loadThemeChoice(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY)
    return v === 'light' || v === 'dark' ? v : 'system'
  } catch {
    return 'system' // storage disabled (private mode)
  }
}

/** `data-theme` overrides prefers-color-scheme; "system" removes it. */
export function useApplyTheme(): void {
  const theme = useApp((s) => s.theme)
  useEffect(() => {
    const root = document.documentElement
    if (theme === 'system') root.removeAttribute('data-theme')
    else root.setAttribute('data-theme', theme)
    try {
      localStorage.setItem(KEY, theme)
    } catch {
      /* private mode */
    }
  }, [theme])
}

export function cycleTheme(): void {
  const order: ThemeChoice[] = ['system', 'light', 'dark']
  const cur = useApp.getState().theme
  setTheme(order[(order.indexOf(cur) + 1) % order.length]!)
}
