/** Per-turn token and cost totals. Unpriced calls stay unpriced: a turn is never silently $0. */
import { ZERO_TOKENS } from '@shared/contract/tokens'
import type { NormalizedUsage } from './providers/types'
import type { PriceResult } from './pricing'
import type { TurnResult, TurnTokens } from './types'

export class TurnAccounting {
  readonly tokens: TurnTokens = ZERO_TOKENS()
  apiCalls = 0
  messagesSaved = 0
  private pricedUsd = 0
  private priced = 0
  private unpriced = 0

  addCall(usage: NormalizedUsage | null, price: PriceResult): void {
    this.apiCalls++
    if (usage) {
      this.tokens.input += usage.inputTokens
      this.tokens.output += usage.outputTokens
      this.tokens.cacheRead += usage.cacheReadTokens
      this.tokens.cacheWrite += usage.cacheWriteTokens
      this.tokens.reasoning += usage.reasoningTokens
    }
    if (price.costUsd === null) this.unpriced++
    else {
      this.priced++
      this.pricedUsd += price.costUsd
    }
  }

  cost(): Pick<TurnResult, 'costUsd' | 'costStatus'> {
    if (this.priced === 0) return { costUsd: null, costStatus: 'unpriced' }
    return { costUsd: this.pricedUsd, costStatus: this.unpriced ? 'partial' : 'estimated' }
  }
}
