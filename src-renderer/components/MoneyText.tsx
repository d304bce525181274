import type { Money } from '@shared/contract'
import { formatMoney, moneyQualifier } from '../lib/format'

/** An amount that never reads as a silent $0: "unpriced" and "partial" are spelled out. */
export function MoneyText({ money, testId }: { money: Money | null | undefined; testId?: string }) {
  const text = formatMoney(money)
  const q = moneyQualifier(money)
  const cls = text === 'unpriced' ? 'money money-unpriced' : 'money'
  return (
    <span className={cls} data-testid={testId} data-status={money?.status} title={money ? `${money.status}${money.complete ? ', complete' : ''}` : undefined}>
      {text}
      {q && <span className="badge badge-warn money-q">{q}</span>}
    </span>
  )
}
