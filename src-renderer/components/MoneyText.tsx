import type { Money } from '@shared/contract'
import { formatMoney, moneyQualifier } from '../lib/format'

const EXPLAIN: Record<Money['status'], string> = {
  billed: 'billed by the provider',
  estimated: 'estimated from token prices',
  partial:
    'partial: part of this usage ran on a model with no known price, so it is left out of this amount — set a price in Settings → Prices',
  unpriced: 'unpriced: tokens were used but no price is known for the model — set one in Settings → Prices',
  none: 'no usage'
}

/** An amount that never reads as a silent $0: "unpriced" and "partial" are spelled out. */
export function MoneyText({
  money,
  testId,
  bare,
  custom
}: {
  money: Money | null | undefined
  testId?: string
  /** Priced (in part) with the user's override from Settings → Prices: labelled "custom price". */
  custom?: boolean
  /** Leave out the "partial" chip (the caller states the status beside it). */ bare?: boolean
}) {
  const text = formatMoney(money)
  const q = moneyQualifier(money)
  const cls = text === 'unpriced' ? 'money money-unpriced' : 'money'
  return (
    <span
      className={cls}
      data-testid={testId}
      data-status={money?.status}
      title={money ? (EXPLAIN[money.status] ?? money.status) : undefined}
    >
      {text}
      {q && !bare && <span className="badge badge-warn money-q">{q}</span>}
      {custom && (
        <span
          className="badge badge-accent"
          title="Priced with your override in Settings → Prices"
          data-testid="custom-price"
        >
          custom price
        </span>
      )}
    </span>
  )
}
