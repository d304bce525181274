/**
 * How often, and after what wait, a reply whose stream broke off before any text is asked for again. The shape is
 * upstream's, as observed on its loop against a server that drops every stream (scripts/golden/stream_cutoff.py,
 * scenario `early_always`): attempts go in rounds of 3 with no wait inside a round; between rounds the wait grows,
 * `base`, then `2 × base`, each plus up to half again at random (upstream: 2–3 s, then 4–6 s); 3 rounds make a
 * cycle. A connection that dropped or stalled (not a garbled or empty stream) on a direct endpoint gets one more
 * cycle after `3 × base` (upstream: 6 s), as upstream rebuilds its client and tries again; aggregators (OpenRouter,
 * Nous) do not. So at most 18 attempts on a dropped connection, 9 on an empty or garbled stream.
 *
 * A reply that came whole but held nothing (`emptyReply`: an Anthropic message with no content block and no
 * end_turn) is another path upstream's: its invalid-response retries, observed on its loop (the same golden, scenario
 * `ant_start_only`): 3 attempts in all, the waits `2.5 × base` then `5 × base`, each plus up to half again (upstream:
 * 5–7.5 s, then 10–15 s).
 */
import type { ProviderError, RuntimeConfig } from './providers/types'

const PER_ROUND = 3
const ROUNDS = 3
const PER_CYCLE = PER_ROUND * ROUNDS

/** Providers that run their own retries server-side, so upstream gives them no second cycle. */
function aggregator(runtime: Pick<RuntimeConfig, 'provider' | 'baseUrl'>): boolean {
  const p = runtime.provider.trim().toLowerCase()
  return p === 'openrouter' || p === 'nous' || p === 'nous-research' || /openrouter\.ai/i.test(runtime.baseUrl)
}

/** How many attempts in all an empty reply gets. */
const EMPTY_REPLY_ATTEMPTS = 3

type Cause = Pick<ProviderError, 'kind' | 'emptyReply'>

/** The most attempts (the first one included) a reply cut before any text by this failure gets. */
export function streamAttemptLimit(cause: Cause, runtime: Pick<RuntimeConfig, 'provider' | 'baseUrl'>) {
  if (cause.emptyReply) return EMPTY_REPLY_ATTEMPTS
  const transport = cause.kind === 'network' || cause.kind === 'timeout'
  return transport && !aggregator(runtime) ? 2 * PER_CYCLE : PER_CYCLE
}

/**
 * The wait (ms) before the next attempt after `failed` attempts in a row broke off before any text (`failed` ≥ 1,
 * below the limit): 0 inside a round, the growing wait between rounds, `3 × baseMs` between cycles. After an empty
 * reply (`emptyReply`), `2.5 × baseMs` doubling with each attempt.
 */
export function streamRetryWaitMs(
  failed: number,
  baseMs: number,
  random: () => number = Math.random,
  emptyReply = false
): number {
  if (emptyReply) {
    const wait = 2.5 * baseMs * 2 ** (failed - 1)
    return Math.round(wait + random() * 0.5 * wait)
  }
  const inCycle = ((failed - 1) % PER_CYCLE) + 1
  if (inCycle % PER_ROUND !== 0) return 0
  if (inCycle === PER_CYCLE) return 3 * baseMs
  const wait = baseMs * 2 ** (inCycle / PER_ROUND - 1)
  return Math.round(wait + random() * 0.5 * wait)
}
