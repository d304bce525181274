import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { QueryClientProvider } from '@tanstack/react-query'
import { connectApi } from './api'
import { App, rememberedScope } from './app/App'
import { openTranscriptsEarly } from './app/open-early'
import { warmMarkdown } from './components/markdown/Markdown'
import { loadThemeChoice } from './app/theme'
import { loadApp, useApp } from './stores/app'
import { resyncAfterReconnect, wireBridge } from './stores/bridge'
import { queryClient } from './stores/server'
import { setConnectionState, setTransportKind } from './stores/connection'
import { reportError } from './stores/toasts'
import { syncTurns } from './stores/turns'
import { probeHost, setHostAccess } from './stores/auth'
import { sendDeletesLeftOnLeave, sendPendingDeleteOnLeave } from './stores/pending-delete'
import './styles/theme.css'
import './styles/layout.css'
import './styles/components.css'
import './styles/pages.css'
import './styles/markdown.css'
import './styles/selection.css'
import './styles/reading.css'

useApp.setState({ theme: loadThemeChoice(), scope: rememberedScope() })
openTranscriptsEarly()
// after the first screen is up, not before it
if (typeof requestIdleCallback === 'function') requestIdleCallback(warmMarkdown, { timeout: 3000 })
else setTimeout(warmMarkdown, 500)

// a delete still in its undo window is sent as the page goes away (pagehide also fires where unload no longer does)
addEventListener('pagehide', sendPendingDeleteOnLeave)

connectApi((state) => {
  const reconnected = setConnectionState(state)
  // The WebSocket only says "closed": ask over HTTP whether the token is missing, refused, or the host is down.
  if (state === 'reconnecting' || state === 'closed') void probeHost()
  else if (state === 'connected') setHostAccess('ok')
  if (reconnected) void resyncAfterReconnect()
})
  .then(({ api, kind }) => {
    setTransportKind(kind)
    wireBridge(api)
    // deletes a page here could not send as it went (past the browser's budget for that) go now
    void sendDeletesLeftOnLeave().catch((err: unknown) => reportError(err, 'Deleting sessions'))
    // turns running or queued before this window opened (a reload, a second window) show too
    return Promise.all([loadApp(), syncTurns()])
  })
  .catch((err) => reportError(err, 'Connecting'))

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>
)
