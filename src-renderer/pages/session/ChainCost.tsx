import type { Money, SessionCost, SessionRef } from '@shared/contract'
import { sumMoney } from '@shared/contract/money'
import { MoneyText } from '../../components/MoneyText'
import { sessionHref } from '../../app/routes'
import { centsThatAddUp } from './usage-rows'

/** A compression chain's cost: every segment's inclusive cost, summed in micro-dollars so it adds up exactly. */
export function chainTotal(costs: readonly SessionCost[]): Money {
  const m = sumMoney(costs.map((c) => c.inclusive))
  if (m.usd == null) return m
  return { ...m, usd: costs.reduce((a, c) => a + Math.round((c.inclusive.usd ?? 0) * 1e6), 0) / 1e6 }
}

/** How many messages the chain's transcript shows of this part (a host that does not say: the part's own count). */
export const chainMessages = (r: SessionRef) => r.chainMessages ?? r.messageCount

/** The whole conversation of a compression chain: each part's messages and cost, and their total. */
export function ChainCost({
  profile,
  chain,
  costs,
  current
}: {
  profile: string
  chain: SessionRef[]
  costs: SessionCost[]
  current: string
}) {
  const total = chainTotal(costs)
  const shown =
    total.usd != null
      ? centsThatAddUp(
          total.usd,
          costs.map((c) => c.inclusive.usd)
        )
      : costs.map((c) => c.inclusive.usd)
  // each part's messages as the conversation shows them: a row a later part carries a copy of counts once
  const messages = chain.reduce((a, r) => a + chainMessages(r), 0)
  return (
    <section className="panel chain-cost" data-testid="chain-cost">
      <h2 className="section-title">Conversation · {chain.length} parts</h2>
      <table className="table compact">
        <thead>
          <tr>
            <th>Part</th>
            <th className="num">Messages</th>
            <th className="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {chain.map((r, i) => {
            const c = costs.find((x) => x.sessionId === r.id)
            const usd = shown[costs.findIndex((x) => x.sessionId === r.id)]
            return (
              <tr key={r.id} data-testid="chain-part" aria-current={r.id === current ? 'true' : undefined}>
                <td>
                  {r.id === current ? (
                    <span title={r.id}>Part {i + 1} (this one)</span>
                  ) : (
                    <a href={sessionHref(profile, r.id)} title={r.id}>
                      Part {i + 1}
                    </a>
                  )}
                </td>
                <td className="num">{chainMessages(r).toLocaleString()}</td>
                <td className="num">
                  {c && (
                    <MoneyText
                      money={usd == null || c.inclusive.usd == null ? c.inclusive : { ...c.inclusive, usd }}
                      custom={c.customPrice}
                      testId="chain-part-cost"
                    />
                  )}
                </td>
              </tr>
            )
          })}
          <tr className="total-row">
            <th scope="row">Total</th>
            <td className="num">{messages.toLocaleString()}</td>
            <td className="num">
              <MoneyText money={total} custom={costs.some((c) => c.customPrice)} testId="chain-total-cost" />
            </td>
          </tr>
        </tbody>
      </table>
    </section>
  )
}
