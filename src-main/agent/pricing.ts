/**
 * Cost of one provider call from `@pydantic/genai-prices` (bundled price data, no network).
 * Only priced when the provider is identified (by id or by its API URL): genai-prices would otherwise
 * guess from the model name alone and bill a local vLLM "gpt-4o" at OpenAI rates. Anything we can't
 * price is `costUsd: null, costStatus: 'unpriced'` — never $0 (ARCHITECTURE invariant 5).
 */
import { calcPrice, findProvider, type Provider } from '@pydantic/genai-prices'
import type { NormalizedUsage } from './providers/types'

export interface PriceResult {
  costUsd: number | null
  costStatus: 'estimated' | 'unpriced'
  /** Names the price source so a later reader knows which table priced the call. */
  pricingVersion: string | null
}

export const PRICING_SOURCE = 'genai-prices'
const UNPRICED: PriceResult = { costUsd: null, costStatus: 'unpriced', pricingVersion: null }
const NEVER_PRICED = new Set(['demo', 'scripted', 'local', 'ollama', 'lmstudio', 'vllm', 'llamacpp'])
// genai-prices ids that differ from the provider names Hermes configs use.
const PROVIDER_ALIASES: Record<string, string> = {
  gemini: 'google',
  'google-ai-studio': 'google',
  xai: 'x-ai',
  together: 'together'
}

export function priceCall(
  route: { provider: string; model: string; baseUrl: string },
  usage: NormalizedUsage
): PriceResult {
  const providerId = route.provider.trim().toLowerCase()
  if (!route.model || NEVER_PRICED.has(providerId) || isLocal(route.baseUrl)) return UNPRICED
  const provider = lookupProvider(providerId, route.baseUrl)
  if (!provider) return UNPRICED
  try {
    const result = calcPrice(
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
      pricingVersion: `${PRICING_SOURCE}:${result.model.id}`
    }
  } catch {
    return UNPRICED
  }
}

function lookupProvider(providerId: string, baseUrl: string): Provider | undefined {
  try {
    if (providerId && providerId !== 'custom') {
      const byId = findProvider({ providerId: PROVIDER_ALIASES[providerId] ?? providerId })
      if (byId) return byId
    }
    return baseUrl ? findProvider({ providerApiUrl: baseUrl }) : undefined
  } catch {
    return undefined
  }
}

// "openai/gpt-4o" on OpenRouter is listed with the prefix; on OpenAI itself the prefix would not match.
function stripProviderPrefix(model: string, providerId: string): string {
  return providerId !== 'openrouter' && model.startsWith(`${providerId}/`) ? model.slice(providerId.length + 1) : model
}

function isLocal(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname
    return host === 'localhost' || host === '127.0.0.1' || host === '::1' || host === '[::1]' || host.endsWith('.local')
  } catch {
    return false
  }
}
