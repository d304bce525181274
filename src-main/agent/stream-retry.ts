/**
 * How often, and after what wait, a reply whose stream broke off before any text is asked for again. The shape is
 * upstream's, as observed on its loop against a server that drops every stream (scripts/golden/stream_cutoff.py,
 * scenario `early_always`): attempts go in rounds of 3 with no wait inside a round; between rounds the wait grows,
 * `base`, then `2 × base`, each plus up to half again at random (upstream: 2–3 s, then 4–6 s); 3 rounds make a
 * cycle. A connection that dropped or stalled (not a garbled or empty stream) on a direct endpoint gets one more
 * cycle after `3 × base` (upstream: 6 s), as upstream rebuilds its client and tries again; aggregators (OpenRouter,
 * Nous) do not. So at most 18 attempts on a dropped connection, 9 on an empty or garbled stream.
 */
import type { ProviderErrorKind, RuntimeConfig } from './providers/types'

const PER_ROUND = 3
const ROUNDS = 3
const PER_CYCLE = PER_ROUND * ROUNDS

/** Providers that run their own retries server-side, so upstream gives them no second cycle. */
function aggregator(runtime: Pick<RuntimeConfig, 'provider' | 'baseUrl'>): boolean {
  const p = runtime.provider.trim().toLowerCase()
  return p === 'openrouter' || p === 'nous' || p === 'nous-research' || /openrouter\.ai/i.test(runtime.baseUrl)
}

/** The most attempts (the first one included) a reply cut before any text by a failure of this kind gets. */
export function streamAttemptLimit(kind: ProviderErrorKind, runtime: Pick<RuntimeConfig, 'provider' | 'baseUrl'>) {
  const transport = kind === 'network' || kind === 'timeout'
  return transport && !aggregator(runtime) ? 2 * PER_CYCLE : PER_CYCLE
}

/**
 * The wait (ms) before the next attempt after `failed` attempts in a row broke off before any text (`failed` ≥ 1,
 * below the limit): 0 inside a round, the growing wait between rounds, `3 × baseMs` between cycles.
 */
export function streamRetryWaitMs(failed: number, baseMs: number, random: () => number = Math.random): number {
  const inCycle = ((failed - 1) % PER_CYCLE) + 1
  if (inCycle % PER_ROUND !== 0) return 0
  if (inCycle === PER_CYCLE) return 3 * baseMs
  const wait = baseMs * 2 ** (inCycle / PER_ROUND - 1)
  return Math.round(wait + random() * 0.5 * wait)
}
