import type { ProviderHealth } from '@shared/contract'
import { useMemory } from '../../stores/memory'
import { RelTime } from '../../components/RelTime'

/** The recall a turn used: when, ok/failed (with why), its question, size and duration. */
function LastRecall({ r }: { r: NonNullable<ProviderHealth['lastPrefetch']> }) {
  return (
    <span className={r.ok ? '' : 'err-text'} title={r.detail ?? undefined}>
      <RelTime at={r.at} /> {r.ok ? 'ok' : 'failed'}
      {r.query != null && (
        <span className="mono" data-testid="memory-health-query">{` “${r.query.slice(0, 60)}”`}</span>
      )}
      {r.ok && r.size != null ? `, ${r.size} chars` : ''}
      {r.latencyMs != null ? `, ${Math.round(r.latencyMs)}ms` : ''}
      {!r.ok && r.detail && (
        <div className="small" data-testid="memory-health-reason">
          {r.detail.slice(0, 100)}
        </div>
      )}
    </span>
  )
}

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
              <th className="num">Syncs</th>
              <th className="num">Writes</th>
              <th>Last recall</th>
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
                <td className={`num${h.syncFailures ? ' err-text' : ''}`} data-testid="memory-health-syncs">
                  {h.syncs ?? 0}
                  {h.syncFailures ? ` (${h.syncFailures} failed)` : ''}
                </td>
                <td className="num" data-testid="memory-health-writes">
                  {h.writes ?? 0}
                </td>
                <td
                  data-testid="memory-health-prefetch"
                  data-ok={h.lastPrefetch ? String(h.lastPrefetch.ok) : undefined}
                >
                  {h.lastPrefetch ? <LastRecall r={h.lastPrefetch} /> : <span className="muted">never</span>}
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
