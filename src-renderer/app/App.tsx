import { useEffect, useMemo } from 'react'
import { ErrorBoundary } from '../components/ErrorBoundary'
import { Toasts } from '../components/Toasts'
import { UndoBar } from '../components/UndoBar'
import { useApp } from '../stores/app'
import { ProfileRail } from './ProfileRail'
import { PageView } from './PageView'
import { parseHash, useHash } from './router'
import { TopBar } from './TopBar'
import { useGlobalKeys } from './keyboard'
import { useApplyTheme } from './theme'
import { PaletteHost } from './palette/PaletteHost'
import { useOverlay } from './palette/state'
import { DisconnectedBanner, HostAccessScreen } from './HostAccessScreen'
import { LockedBanner } from './LockedBanner'
import { useHostAccess } from '../stores/auth'
import { useSessionsUrlState } from './url-state'

const SCOPE_KEY = 'caduceus.scope'

export function rememberedScope(): string {
  try {
    return localStorage.getItem(SCOPE_KEY) || 'all'
  } catch {
    // storage disabled (private mode)
    return 'all'
  }
}

export function App() {
  const hash = useHash()
  const route = useMemo(() => parseHash(hash), [hash])
  const scope = useApp((s) => s.scope)
  const loaded = useApp((s) => s.loaded)
  const railCollapsed = useOverlay((s) => s.railCollapsed)
  const blocked = useHostAccess((s) => s.access === 'missing-token' || s.access === 'token-rejected')
  useApplyTheme()
  useGlobalKeys()
  useSessionsUrlState()
  useEffect(() => {
    try {
      localStorage.setItem(SCOPE_KEY, scope)
    } catch {
      /* private mode */
    }
  }, [scope])

  return (
    <div className={`shell${railCollapsed ? ' rail-collapsed' : ''}`}>
      <ProfileRail />
      <div className="main">
        <TopBar route={route} />
        <main className="page" data-testid={`page-${route.page}`}>
          <DisconnectedBanner />
          <LockedBanner />
          <ErrorBoundary resetKey={hash}>
            {blocked ? (
              <HostAccessScreen />
            ) : loaded ? (
              <PageView route={route} />
            ) : (
              <div className="muted pad">Connecting to the host…</div>
            )}
          </ErrorBoundary>
        </main>
      </div>
      <Toasts />
      <UndoBar />
      <PaletteHost route={route} />
    </div>
  )
}
