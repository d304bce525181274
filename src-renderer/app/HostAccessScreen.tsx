import { useConnection } from '../stores/connection'
import { useHostAccess } from '../stores/auth'

/**
 * Full-page explanations for a headless tab that cannot reach the host: what happened and what to do.
 * Returns null when there is nothing to explain.
 */
export function HostAccessScreen() {
  const access = useHostAccess((s) => s.access)
  if (access === 'missing-token') {
    return (
      <div className="state-screen" data-testid="token-needed" role="alert">
        <h1>An access token is needed</h1>
        <p>This page talks to a Caduceus host that only answers callers holding its token, and this tab has none.</p>
        <p>
          Open the address that <code>caduceus serve</code> printed when it started — it ends in <code>?token=…</code>.
          Lost it? The token stays the same across restarts: run <code>caduceus serve</code> again and it prints the
          same address.
        </p>
      </div>
    )
  }
  if (access === 'token-rejected') {
    return (
      <div className="state-screen" data-testid="token-rejected" role="alert">
        <h1>The host no longer accepts this tab’s token</h1>
        <p>
          The host refuses the token this tab holds (401): its token was replaced, for example by{' '}
          <code>caduceus serve --rotate-token</code>, or this tab was opened for another host.
        </p>
        <p>
          Open the new address that <code>caduceus serve</code> printed (it ends in <code>?token=…</code>).
        </p>
      </div>
    )
  }
  return null
}

/** A thin banner while the host is unreachable; pages stay readable, sending is disabled. */
export function DisconnectedBanner() {
  const state = useConnection((s) => s.state)
  const access = useHostAccess((s) => s.access)
  // without a usable token there is nothing to reconnect with: the token screen says what to do instead
  if (state === 'connected' || state === 'connecting' || access === 'missing-token' || access === 'token-rejected')
    return null
  return (
    <div className="banner banner-warn" role="status" data-testid="disconnected-banner">
      {access === 'host-down' ? (
        <>
          Disconnected: the host is not answering. Start it again (<code>caduceus serve</code>); this page reconnects by
          itself. Sending is disabled meanwhile.
        </>
      ) : (
        <>Reconnecting to the host… Sending is disabled until the connection is back.</>
      )}
    </div>
  )
}
