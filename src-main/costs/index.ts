/**
 * costs/ — what usage cost: the per-session and Costs-page read models (`costs.session`, `costs.summary`), built
 * from the same integer micro-dollar pieces (pieces.ts) so every total agrees; the user's price overrides
 * (Settings → Prices) applied at read time; and the child-usage ledger (`delegation_child_usage`) delegation
 * writes when a child finishes. The money rules themselves are the contract's (`shared/contract/money.ts`).
 */
export { sessionCost, type ProfileStore } from './session-cost'
export { costSummary } from './summary'
export { readPriceOverrides, writePriceOverrides } from './price-overrides'
export { priceSessionRows, priceSessionDetail } from './custom-prices'
export { recordChildUsageAttribution, type ChildUsage } from './ledger'
export { childPieces, ownPieces, querySource } from './pieces'
