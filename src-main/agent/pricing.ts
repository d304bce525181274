/**
 * Cost of one provider call from `@pydantic/genai-prices` (bundled price data, no network).
 * Only priced when the provider is identified (by id or by its API URL): genai-prices would otherwise
 * guess from the model name alone and bill a local vLLM "gpt-4o" at OpenAI rates. Anything we can't
 * price is `costUsd: null, costStatus: 'unpriced'` — never $0 (ARCHITECTURE invariant 5).
 */
import type { Provider } from '@pydantic/genai-prices'
import type { NormalizedUsage } from './providers/types'
import { parseUrl } from '@shared/contract/errors'

type Prices = typeof import('@pydantic/genai-prices')
let loading: Promise<Prices> | undefined

/**
 * The pricer, once its table is loaded. The table is ~0.6 MB of data that a host or CLI start does not need until a
 * call is priced (~50 ms of every process start when imported up front): it is loaded on the first ask, then kept.
 */
export async function loadPricer(): Promise<(route: Route, usage: NormalizedUsage) => PriceResult> {
  const prices = await (loading ??= import('@pydantic/genai-prices'))
  return (route, usage) => priceCall(route, usage, prices)
}

export interface PriceResult {
  costUsd: number | null
  costStatus: 'estimated' | 'unpriced'
  /**
   * `cost_source` in upstream's words: genai-prices is a bundled snapshot of the providers' published prices, what
   * upstream calls `official_docs_snapshot` for its own table; `none` when unpriced.
   */
  costSource: 'official_docs_snapshot' | 'none'
  /** Names the price source so a later reader knows which table priced the call. */
  pricingVersion: string | null
}

/**
 * One call's price. A route never priced (a local or demo provider) is answered without the table, so a host that
 * only talks to those never loads it.
 */
export async function priceOf(route: Route, usage: NormalizedUsage): Promise<PriceResult> {
  if (!priceable(route)) return UNPRICED
  return (await loadPricer())(route, usage)
}

export const PRICING_SOURCE = 'genai-prices'
export const UNPRICED: PriceResult = { costUsd: null, costStatus: 'unpriced', costSource: 'none', pricingVersion: null }
const NEVER_PRICED = new Set(['demo', 'scripted', 'local', 'ollama', 'lmstudio', 'vllm', 'llamacpp'])
// genai-prices ids that differ from the provider names Hermes configs use.
const PROVIDER_ALIASES: Record<string, string> = {
  gemini: 'google',
  'google-ai-studio': 'google',
  xai: 'x-ai',
  together: 'together'
}

type Route = { provider: string; model: string; baseUrl: string }

const priceable = (route: Route) =>
  Boolean(route.model) && !NEVER_PRICED.has(route.provider.trim().toLowerCase()) && !isLocal(route.baseUrl)

function priceCall(route: Route, usage: NormalizedUsage, prices: Prices): PriceResult {
  if (!priceable(route)) return UNPRICED
  const providerId = route.provider.trim().toLowerCase()
  const provider = lookupProvider(prices, providerId, route.baseUrl)
  if (!provider) return UNPRICED
  try {
    const result = prices.calcPrice(
      {
        // genai-prices counts cache reads/writes as parts of the total input.
        input_tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
        cache_read_tokens: usage.cacheReadTokens,
        cache_write_tokens: usage.cacheWriteTokens,
        output_tokens: usage.outputTokens
      },
      stripProviderPrefix(route.model, provider.id),
      { provider }
    )
    if (!result || !Number.isFinite(result.total_price)) return UNPRICED
    return {
      costUsd: result.total_price,
      costStatus: 'estimated',
      costSource: 'official_docs_snapshot',
      pricingVersion: `${PRICING_SOURCE}:${result.model.id}`
    }
  } catch {
    // genai-prices throws on a model or usage shape it cannot price: unpriced, as a model it does not list
    return UNPRICED
  }
}

function lookupProvider(prices: Prices, providerId: string, baseUrl: string): Provider | undefined {
  try {
    if (providerId && providerId !== 'custom') {
      const byId = prices.findProvider({ providerId: PROVIDER_ALIASES[providerId] ?? providerId })
      if (byId) return byId
    }
    return baseUrl ? prices.findProvider({ providerApiUrl: baseUrl }) : undefined
  } catch {
    return undefined // a provider id or URL the price table cannot match: unpriced (above)
  }
}

// "openai/gpt-4o" on OpenRouter is listed with the prefix; on OpenAI itself the prefix would not match.
function stripProviderPrefix(model: string, providerId: string): string {
  return providerId !== 'openrouter' && model.startsWith(`${providerId}/`) ? model.slice(providerId.length + 1) : model
}

function isLocal(baseUrl: string): boolean {
  const host = parseUrl(baseUrl)?.hostname
  if (host === undefined) return false
  return host === 'localhost' || host === '127.0.0.1' || host === '::1' || host === '[::1]' || host.endsWith('.local')
}
