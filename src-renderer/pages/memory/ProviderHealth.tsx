import { useMemory } from '../../stores/memory'
import { RelTime } from '../../components/RelTime'

export function ProviderHealthPanel() {
  const health = useMemory((s) => s.health)
  return (
    <section className="panel" data-testid="memory-health">
      <h3>Provider health</h3>
      {!health.length ? (
        <p className="muted">No providers have reported yet.</p>
      ) : (
        <table className="table compact">
          <thead>
            <tr>
              <th>Provider</th>
              <th>Profile</th>
              <th className="num">Calls</th>
              <th className="num">Errors</th>
              <th className="num">Refusals</th>
              <th className="num">p95</th>
              <th>Last prefetch</th>
              <th>Last error</th>
            </tr>
          </thead>
          <tbody>
            {health.map((h) => (
              <tr key={`${h.profile}/${h.provider}`} data-testid="memory-health-row" data-provider={h.provider}>
                <td className="mono">{h.provider}</td>
                <td>{h.profile}</td>
                <td className="num">{h.calls}</td>
                <td className={`num${h.errors ? ' err-text' : ''}`}>{h.errors}</td>
                <td className="num">{h.refusals}</td>
                <td className="num">{h.p95LatencyMs != null ? `${Math.round(h.p95LatencyMs)}ms` : '—'}</td>
                <td data-testid="memory-health-prefetch">
                  {h.lastPrefetch ? (
                    <span className={h.lastPrefetch.ok ? '' : 'err-text'}>
                      <RelTime at={h.lastPrefetch.at} />
                      {h.lastPrefetch.latencyMs != null ? `, ${Math.round(h.lastPrefetch.latencyMs)}ms` : ''}
                      {h.lastPrefetch.size != null ? `, ${h.lastPrefetch.size} chars` : ''}
                    </span>
                  ) : (
                    <span className="muted">never</span>
                  )}
                  {h.lastSyncError && (
                    <div className="err-text small" title={h.lastSyncError.summary}>
                      sync: {h.lastSyncError.summary.slice(0, 60)}
                    </div>
                  )}
                </td>
                <td>
                  {h.lastError ? (
                    <span className="err-text" title={h.lastError}>
                      {h.lastError.slice(0, 80)}{' '}
                      {h.lastErrorAt != null && (
                        <span className="muted">
                          (<RelTime at={h.lastErrorAt} />)
                        </span>
                      )}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
