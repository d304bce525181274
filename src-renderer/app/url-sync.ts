import { useEffect } from 'react'
import { useApp } from '../stores/app'

/** Rewrite the current history entry's hash (typing into a filter must not flood back/forward). */
export function replaceHash(next: string): void {
  if (next !== location.hash) history.replaceState(history.state, '', next)
}

/**
 * Keep a page's state and its URL query in step: read the URL on mount (and write it back when
 * `writeOnMount`), read and write on every hashchange, and write whenever the profile scope or what
 * `watch` reports changes. `read`/`write` check themselves that their page is the one in the URL.
 */
export function useUrlSync(
  read: () => void,
  write: () => void,
  watch: (changed: () => void) => () => void,
  writeOnMount = false
): void {
  useEffect(() => {
    read()
    if (writeOnMount) write()
    const onHash = () => {
      read()
      write()
    }
    window.addEventListener('hashchange', onHash)
    const unScope = useApp.subscribe((s, p) => {
      if (s.scope !== p.scope) write()
    })
    const unPage = watch(write)
    return () => {
      window.removeEventListener('hashchange', onHash)
      unScope()
      unPage()
    }
    // callers pass module-level functions, so this runs once per mount
  }, [read, write, watch, writeOnMount])
}
