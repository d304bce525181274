import { RefreshIcon } from '../components/icons'
import { useNow } from '../components/RelTime'
import { SessionName } from '../components/SessionName'
import { evictAgent, useGateway, useGatewayState } from '../stores/gateway'
import { ChannelsPanel } from './gateway/ChannelsPanel'

function idle(s: number): string {
  s = Math.max(0, Math.floor(s))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/** Cached agents across profiles; refreshed on gateway.changed while this page is open. */
export function GatewayPage() {
  const { state, fetchedAt, loading, refresh } = useGatewayState()
  const evicting = useGateway((s) => s.evicting)
  const now = useNow(1000)
  // the host reports idle time at read time; keep it counting here rather than polling
  const since = Math.max(0, (now - fetchedAt) / 1000)
  return (
    <div className="gateway-page">
      <h1 className="sr-only">Gateway</h1>
      <ChannelsPanel />
      <div className="toolbar">
        <h2>Agent cache</h2>
        {state && (
          <span className="muted">
            {state.agents.length} / {state.cap} cached · idle TTL {Math.round(state.idleTtlSeconds / 60)} min
          </span>
        )}
        <span className="spacer" />
        <button
          className="icon-btn"
          onClick={() => void refresh()}
          title="Refresh"
          aria-label="Refresh"
          data-testid="gateway-refresh"
        >
          <RefreshIcon />
        </button>
      </div>
      {!state ? (
        <div className="empty">{loading ? 'Loading…' : 'Gateway state unavailable.'}</div>
      ) : !state.agents.length ? (
        <div className="empty" data-testid="gateway-empty">
          No cached agents. They appear after a turn runs.
        </div>
      ) : (
        <table className="table" data-testid="gateway-table">
          <thead>
            <tr>
              <th>Profile</th>
              <th>Session</th>
              <th>Model</th>
              <th>State</th>
              <th className="num">Idle</th>
              <th className="num">Turns</th>
              <th>Signature</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {state.agents.map((a) => (
              <tr key={a.key} data-testid="gateway-agent" data-key={a.key} data-running={a.running}>
                <td>{a.profile}</td>
                <td>
                  {a.sessionId ? (
                    <SessionName profile={a.profile} id={a.sessionId} />
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="mono">{a.model ?? '—'}</td>
                <td>
                  {a.running ? (
                    <span className="badge badge-accent">
                      <span className="pulse" aria-hidden />
                      running
                    </span>
                  ) : (
                    <span className="badge badge-neutral">idle</span>
                  )}
                </td>
                <td
                  className="num"
                  title={
                    a.running
                      ? 'running'
                      : `released after ${Math.round(state.idleTtlSeconds / 60)} min idle; ${idle(state.idleTtlSeconds - a.idleSeconds - since)} left`
                  }
                >
                  {a.running ? '—' : idle(a.idleSeconds + since)}
                </td>
                <td className="num">{a.turns}</td>
                <td className="mono muted" title={a.signature}>
                  {a.signature.slice(0, 10)}
                </td>
                <td>
                  <button
                    className="small danger"
                    disabled={a.running || !!evicting[a.key]}
                    onClick={() => void evictAgent(a.key)}
                    data-testid="gateway-evict"
                    title={a.running ? 'A running agent is never evicted' : 'Release this cached agent'}
                  >
                    {evicting[a.key] ? 'Evicting…' : 'Evict'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
