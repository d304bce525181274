import type { ProviderHealth } from '@shared/contract'
import { useProviderHealth } from '../../stores/memory'
import { RelTime } from '../../components/RelTime'

/**
 * At most `n` characters of `text`, with '…' where it was cut: a cut without a mark read as the whole message
 * ("… did not start: file is not a"). The whole text stays in the line's title.
 */
function upTo(text: string, n: number): string {
  const points = [...text]
  return points.length > n ? points.slice(0, n - 1).join('') + '…' : text
}

/** The recall a turn used: when, ok/failed (with why), its question, size and duration. */
function LastRecall({ r }: { r: NonNullable<ProviderHealth['lastPrefetch']> }) {
  return (
    <span className={r.ok ? '' : 'err-text'} title={r.detail ?? undefined}>
      <RelTime at={r.at} /> {r.ok ? 'ok' : 'failed'}
      {r.query != null && <span className="mono" data-testid="memory-health-query">{` “${upTo(r.query, 60)}”`}</span>}
      {r.ok && r.size != null ? `, ${r.size} chars` : ''}
      {r.latencyMs != null ? `, ${Math.round(r.latencyMs)}ms` : ''}
      {!r.ok && r.detail && (
        <div className="small" data-testid="memory-health-reason">
          {upTo(r.detail, 100)}
        </div>
      )}
    </span>
  )
}

/**
 * One block per provider: ten columns never fitted the 380 px side column (the table overflowed its card), so the
 * counters are a grid that wraps and the last recall / last error get whole lines.
 */
export function ProviderHealthPanel() {
  const health = useProviderHealth()
  return (
    <section className="panel" data-testid="memory-health">
      <h2 className="section-title">Provider health</h2>
      {!health.length ? (
        <p className="muted">No providers have reported yet.</p>
      ) : (
        <ul className="health-list">
          {health.map((h) => (
            <li key={`${h.profile}/${h.provider}`} data-testid="memory-health-row" data-provider={h.provider}>
              <div className="health-head">
                <span className="mono">{h.provider}</span>
                <span className="muted small">{h.profile}</span>
              </div>
              <dl className="health-stats">
                <div>
                  <dt>Calls</dt>
                  <dd>{h.calls}</dd>
                </div>
                <div>
                  <dt>Errors</dt>
                  <dd className={h.errors ? 'err-text' : ''}>{h.errors}</dd>
                </div>
                <div>
                  <dt>Refusals</dt>
                  <dd>{h.refusals}</dd>
                </div>
                <div>
                  <dt>p95</dt>
                  <dd>{h.p95LatencyMs != null ? `${Math.round(h.p95LatencyMs)}ms` : '—'}</dd>
                </div>
                <div>
                  <dt>Syncs</dt>
                  <dd className={h.syncFailures ? 'err-text' : ''} data-testid="memory-health-syncs">
                    {h.syncs ?? 0}
                    {h.syncFailures ? ` (${h.syncFailures} failed)` : ''}
                  </dd>
                </div>
                <div>
                  <dt>Writes</dt>
                  <dd data-testid="memory-health-writes">{h.writes ?? 0}</dd>
                </div>
              </dl>
              <div
                className="health-line"
                data-testid="memory-health-prefetch"
                data-ok={h.lastPrefetch ? String(h.lastPrefetch.ok) : undefined}
              >
                <span className="muted">Last recall </span>
                {h.lastPrefetch ? <LastRecall r={h.lastPrefetch} /> : <span className="muted">never</span>}
                {h.lastSyncError && (
                  <div className="err-text small" title={h.lastSyncError.summary}>
                    sync: {upTo(h.lastSyncError.summary, 60)}
                  </div>
                )}
              </div>
              {h.lastError && (
                <div className="health-line err-text" title={h.lastError}>
                  <span className="muted">Last error </span>
                  {upTo(h.lastError, 240)}{' '}
                  {h.lastErrorAt != null && (
                    <span className="muted">
                      (<RelTime at={h.lastErrorAt} />)
                    </span>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
