import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { readPriceOverrides, writePriceOverrides } from '../../costs'

type PriceHandlers = Pick<HandlerMap, 'prices.get' | 'prices.set'>

export function priceHandlers(s: Services): PriceHandlers {
  return {
    'prices.get': () => ({ overrides: readPriceOverrides(s.root) }),
    'prices.set': async ({ overrides }) => ({ overrides: await writePriceOverrides(s.root, overrides) })
  }
}
