/** The price overrides as the host uses them: read/write the settings file, apply it to session rows. */
import { priceSessionDetail, priceSessionRows } from './custom-prices'
import { readPriceOverrides, writePriceOverrides } from './price-overrides'

export const priceOverrides = {
  read: readPriceOverrides,
  write: writePriceOverrides,
  sessionRows: priceSessionRows,
  sessionDetail: priceSessionDetail
}
