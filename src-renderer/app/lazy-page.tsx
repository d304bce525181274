import { Component, lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react'
import { useConnection } from '../stores/connection'

/** The browser's words for "the chunk could not be fetched" (Chromium, Firefox, Safari). */
const CHUNK_ERROR = /dynamically imported module|Importing a module script failed|error loading dynamically/i

/**
 * A page whose code is a separate chunk, loaded on first visit. A visit while the host is down cannot fetch it,
 * and a failed fetch is kept for good: by React's `lazy`, and by the browser too (Chromium keeps a failed module
 * fetch, and the failed preloads of its imports, for the document's life: importing the same URL again fails at
 * once). So while the host is known to be down the chunk is not asked for at all: the page says why and loads
 * when the connection comes back, no reload needed. A fetch that fails anyway (the host died mid-fetch) is tried
 * again on reconnect, and if the browser still refuses it the page offers a reload.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>, name: string) {
  // Module-level, not component state: a tree that suspends on its first mount is thrown away, state and all,
  // so a per-mount lazy fetched again on every retry render, forever, while the host was down.
  let loaded: ComponentType<P> | null = null
  let failed = false
  /** The current `Lazy` has been rendered, so its fetch has started (or is about to). */
  let attempted = false
  const fresh = () =>
    lazy(() =>
      load().then(
        (c) => ({ default: (loaded = c) }),
        (err: unknown) => {
          failed = true
          throw err
        }
      )
    )
  let Lazy = fresh()

  function Page(props: P) {
    const [retries, rerender] = useState(0)
    const state = useConnection((s) => s.state)
    const connected = state === 'connected'
    const down = state === 'reconnecting' || state === 'closed'
    const retry = () => {
      // A fetch now would fail and be kept by the browser: wait for the host (the effect below retries then).
      if (down) return
      if (failed) Lazy = fresh()
      failed = false
      rerender((n) => n + 1)
    }
    useEffect(() => {
      if (failed && connected && retries === 0) retry() // the host is back: fetch the chunk again, once
    })
    if (loaded) {
      const C = loaded
      return <C {...props} />
    }
    if (failed || (down && !attempted))
      return (
        <div className="page-error" role="alert" data-testid="page-load-failed">
          <h1 className="page-title">The {name} page could not be loaded</h1>
          {failed && connected && retries > 0 ? (
            <>
              <p>The host is back, but this window keeps the failed load of the page&apos;s code until it reloads.</p>
              <button onClick={() => window.location.reload()}>Reload the window</button>
            </>
          ) : (
            <>
              <p>
                Its code comes from the Caduceus host, which does not answer. It loads by itself once the host is back.
              </p>
              <button onClick={retry} disabled={down} title={down ? 'Waiting for the host' : undefined}>
                Try again
              </button>
            </>
          )}
        </div>
      )
    attempted = true
    return (
      <ChunkBoundary onFail={() => rerender((n) => n + 1)}>
        <Lazy {...props} />
      </ChunkBoundary>
    )
  }
  return Page
}

/** Catches a chunk that failed to load; any other error goes on to the app's error boundary. */
class ChunkBoundary extends Component<{ children: ReactNode; onFail: () => void }, { error: Error | null }> {
  state: { error: Error | null } = { error: null }
  static getDerivedStateFromError(error: Error) {
    return { error }
  }
  componentDidCatch(error: Error): void {
    if (CHUNK_ERROR.test(error.message)) this.props.onFail()
  }
  render() {
    const e = this.state.error
    if (e && !CHUNK_ERROR.test(e.message)) throw e
    return e ? null : this.props.children
  }
}
