import type { SessionCost } from '@shared/contract'
import { MoneyText } from '../../components/MoneyText'
import { SessionName } from '../../components/SessionName'
import { childStatusLabel, formatCount, shortId } from '../../lib/format'

/** costs.session: per delegated child, per parent turn, per model. */
export function CostBreakdown({ cost, onHide }: { cost: SessionCost; onHide?: () => void }) {
  return (
    <section className="panel" data-testid="cost-breakdown">
      <div className="panel-head">
        <h2 className="section-title">Cost breakdown</h2>
        {onHide && (
          <button className="link small" onClick={onHide}>
            Hide
          </button>
        )}
      </div>
      {cost.perModel.length > 0 && (
        <table className="table compact">
          <thead>
            <tr>
              <th>Model</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {cost.perModel.map((m) => (
              <tr key={m.model}>
                <td className="mono">{m.model}</td>
                <td className="num">{formatCount(m.tokens.input + m.tokens.output)}</td>
                <td className="num">
                  <MoneyText money={m.cost} custom={m.customPrice} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cost.children.length > 0 ? (
        <table className="table compact" data-testid="cost-children">
          <thead>
            <tr>
              <th>Child</th>
              <th>Status</th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {cost.children.map((c) => (
              <tr key={`${c.childSessionId}/${c.parentTurnId}`}>
                <td>
                  <SessionName profile={cost.profile} id={c.childSessionId} />
                </td>
                <td title={`${c.apiCalls} API call${c.apiCalls === 1 ? '' : 's'}`}>{childStatusLabel(c.status)}</td>
                <td className="num">
                  <MoneyText money={c.cost} custom={c.customPrice} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small">No delegated child spend in the ledger.</p>
      )}
      {cost.perTurn.length > 0 && (
        <table className="table compact" data-testid="cost-per-turn">
          <thead>
            <tr>
              <th>Turn</th>
              <th className="num">Children cost</th>
            </tr>
          </thead>
          <tbody>
            {cost.perTurn.map((t) => (
              <tr key={t.turnId}>
                <td className="mono" title={t.turnId}>
                  {shortId(t.turnId, 12)}
                </td>
                <td className="num">
                  <MoneyText money={t.childrenCost} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
