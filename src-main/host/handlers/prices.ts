import type { HandlerMap } from '../dispatch'
import type { Services } from '../services'
import { priceOverrides } from '../../delegation'

type PriceHandlers = Pick<HandlerMap, 'prices.get' | 'prices.set'>

export function priceHandlers(s: Services): PriceHandlers {
  return {
    'prices.get': () => ({ overrides: priceOverrides.read(s.root) }),
    'prices.set': async ({ overrides }) => ({ overrides: await priceOverrides.write(s.root, overrides) })
  }
}
