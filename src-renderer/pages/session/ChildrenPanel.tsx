import type { Subagent } from '@shared/contract'
import { MoneyText } from '../../components/MoneyText'
import { StateBadge } from '../subagents/StateBadge'
import { SubagentActions } from '../subagents/SubagentActions'

/** Subagents spawned by this session, live via delegation.updated. */
export function ChildrenPanel({ items }: { items: Subagent[] }) {
  if (!items.length) return null
  return (
    <section className="panel" data-testid="session-children">
      <h2 className="section-title">Subagents ({items.length})</h2>
      <ul className="child-list">
        {items.map((s) => (
          <li key={s.childId} data-testid="subagent-row" data-child-id={s.childId} data-state={s.state}>
            <div className="child-head">
              <StateBadge state={s.state} raw={s.rawState} />
              <span className="mono muted">{s.childId}</span>
              <MoneyText money={s.cost} />
            </div>
            <div className="clamp-2" title={s.goal}>
              {s.goal}
            </div>
            <SubagentActions s={s} />
          </li>
        ))}
      </ul>
    </section>
  )
}
