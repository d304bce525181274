/** Caduceus price overrides: a user's per-model (optionally per-endpoint) token prices for usage upstream left unpriced. */
import { z } from 'zod'

export const PriceOverride = z.object({
  model: z.string().trim().min(1).max(200),
  /** Only usage billed to this endpoint (e.g. a custom OpenAI-compatible base URL); empty = any endpoint. */
  baseUrl: z.string().trim().max(500).default(''),
  /** USD per million tokens. */
  inputPerMTok: z.number().finite().min(0).max(10_000),
  outputPerMTok: z.number().finite().min(0).max(10_000),
  cacheReadPerMTok: z.number().finite().min(0).max(10_000).default(0)
})
export type PriceOverride = z.infer<typeof PriceOverride>
export const PriceOverrides = z.object({ overrides: z.array(PriceOverride).max(200) })
export type PriceOverrides = z.infer<typeof PriceOverrides>

export const pricesRequests = {
  /** The price overrides kept in Caduceus settings (never in upstream's cost columns). */
  'prices.get': { input: z.object({}).strict(), output: PriceOverrides },
  /** Replace the price overrides; applied at read time to unpriced usage and labelled "custom price". */
  'prices.set': { input: PriceOverrides, output: PriceOverrides }
}
