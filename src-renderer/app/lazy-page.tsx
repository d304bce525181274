import { Component, lazy, useEffect, useState, type ComponentType, type ReactNode } from 'react'
import { useConnection } from '../stores/connection'

/** The browser's words for "the chunk could not be fetched" (Chromium, Firefox, Safari). */
const CHUNK_ERROR = /dynamically imported module|Importing a module script failed|error loading dynamically/i

/**
 * A page whose code is a separate chunk, loaded on first visit. A visit while the host is down fails to fetch
 * it; React's `lazy` keeps that failure for good, so the page stayed broken after the host came back. Here a
 * failed load says what happened and tries again when the connection comes back (or on the button); no reload
 * needed.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>, name: string) {
  // Module-level, not component state: a tree that suspends on its first mount is thrown away, state and all,
  // so a per-mount lazy fetched again on every retry render, forever, while the host was down.
  let loaded: ComponentType<P> | null = null
  let failed = false
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
    const [, rerender] = useState(0)
    const connected = useConnection((s) => s.state === 'connected')
    const retry = () => {
      failed = false
      Lazy = fresh()
      rerender((n) => n + 1)
    }
    useEffect(() => {
      if (failed && connected) retry() // the host is back: fetch the chunk again
    })
    if (loaded) {
      const C = loaded
      return <C {...props} />
    }
    if (failed)
      return (
        <div className="page-error" role="alert" data-testid="page-load-failed">
          <h2>The {name} page could not be loaded</h2>
          <p>Its code comes from the Caduceus host, which did not answer. It loads by itself once the host is back.</p>
          <button onClick={retry}>Try again</button>
        </div>
      )
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
