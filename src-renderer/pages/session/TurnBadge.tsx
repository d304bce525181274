import type { LiveTurn } from '../../stores/turns'
import { MoneyText } from '../../components/MoneyText'
import { cacheDecisionHelp, cacheDecisionLabel } from '../../lib/format'

/** Per-turn strip: the cache decision as exact text (with what changed, when the host said), the model (or "demo model"), status and cost. */
export function TurnBadge({ t }: { t: LiveTurn }) {
  return (
    <div className="turn-strip" data-testid="turn-strip" data-turn-id={t.turnId} data-status={t.status}>
      {t.cache && (
        <span
          className={`badge ${t.cache === 'reused' ? 'badge-ok' : 'badge-accent'}`}
          data-testid="turn-badge"
          data-cache={t.cache}
          title={cacheDecisionHelp(t.cache)}
        >
          {cacheDecisionLabel(t.cache, t.cacheReason)}
        </span>
      )}
      {t.demo ? (
        <span className="badge badge-warn" data-testid="demo-model">
          demo model
        </span>
      ) : (
        t.model && <span className="mono muted">{t.model}</span>
      )}
      {t.source && t.source !== 'desktop' && (
        <span className="badge" data-testid="turn-source" title="Where this turn came from">
          via {t.source}
        </span>
      )}
      <span className={`turn-status status-${t.status}`} data-testid="turn-status">
        {t.status === 'running' ? (t.stopping ? 'stopping…' : 'running…') : t.partial ? 'partial' : t.status}
      </span>
      {t.error && (
        <span className="err-text" role="alert">
          {t.error}
        </span>
      )}
      {t.cost && t.cost.status !== 'none' && <MoneyText money={t.cost} />}
      {t.apiCalls != null && (
        <span className="muted">
          {t.apiCalls} call{t.apiCalls === 1 ? '' : 's'}
        </span>
      )}
    </div>
  )
}
