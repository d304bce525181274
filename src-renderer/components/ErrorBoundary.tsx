import { Component, type ErrorInfo, type ReactNode } from 'react'

interface State {
  error: Error | null
}

/** A render error shows a message and a retry instead of a blank window; the shell stays usable. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, State> {
  state: State = { error: null }

  static getDerivedStateFromError(error: Error): State {
    return { error }
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('render error', error, info.componentStack)
  }

  componentDidUpdate(prev: { resetKey?: string }): void {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null })
  }

  render() {
    if (!this.state.error) return this.props.children
    return (
      <div className="page-error" role="alert" data-testid="page-error">
        <h1 className="page-title">Something went wrong on this page</h1>
        <pre>{this.state.error.message}</pre>
        <button onClick={() => this.setState({ error: null })}>Try again</button>
      </div>
    )
  }
}
