import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { readPriceOverrides, writePriceOverrides } from '../../costs'

type PriceHandlers = Pick<HandlerMap, 'prices.get' | 'prices.set'>

export function priceHandlers(s: Services): PriceHandlers {
  return {
    'prices.get': () => ({ overrides: [...readPriceOverrides(s.root)] }),
    'prices.set': async ({ overrides }) => {
      const saved = await writePriceOverrides(s.root, overrides)
      // every window re-reads what it priced with the old ones (the renderer's bridge invalidates them)
      s.bus.emit('prices.changed', {})
      return { overrides: saved }
    }
  }
}
