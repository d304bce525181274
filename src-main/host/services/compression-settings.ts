/**
 * config.yaml `compression` as upstream's agent reads it (its DEFAULT_CONFIG merged under the user's section, then
 * its agent's constructor; golden: test/fixtures/upstream/compression-defaults): on unless the section says otherwise,
 * threshold 0.5 raised to 0.75 for windows under 512K, target ratio 0.2 (kept within 0.1–0.8), protect_last_n 20,
 * and the model's context window. An untouched home compresses there, so it must here too, or a long session runs
 * into the provider's context limit where upstream would have rotated.
 */
import type { resolveCompression } from '../../agent'
import type { agentSettings } from '../../config'

type CompressionConfig = NonNullable<Parameters<typeof resolveCompression>[0]>
type CompressionSection = ReturnType<typeof agentSettings>['compression']

/** Windows below this many tokens compress no earlier than SMALL_WINDOW_FLOOR of the window (raise-only). */
const SMALL_WINDOW = 512_000
const SMALL_WINDOW_FLOOR = 0.75
/** Upstream never triggers below this many tokens, and refuses a smaller window outright. */
const MIN_TRIGGER_TOKENS = 64_000
/** Where the trigger goes when that minimum would fill the whole input budget. */
const FULL_WINDOW_TRIGGER = 0.85

/**
 * The prompt size that triggers compression: `fraction` of the input budget (the window less the reply's
 * `maxTokens`, which the provider reserves out of it), never under 64K tokens, and 85% of the budget when that
 * minimum would fill it. A window under 64K (which upstream refuses to run) keeps the plain fraction.
 */
function triggerTokens(window: number, fraction: number, maxTokens: number | null): number {
  const budget = maxTokens && maxTokens > 0 && maxTokens < window ? window - maxTokens : window
  const share = Math.floor(budget * fraction)
  if (window < MIN_TRIGGER_TOKENS) return share
  const floored = Math.max(share, MIN_TRIGGER_TOKENS)
  return floored >= budget ? Math.max(1, Math.min(Math.floor(budget * FULL_WINDOW_TRIGGER), budget - 1)) : floored
}

/**
 * `section`: the profile's compression settings as config/ reads them (`agentSettings(raw).compression`);
 * `maxTokens`: config.yaml's model.max_tokens (null when unset: no reservation).
 */
export function compressionFromConfig(
  section: CompressionSection,
  contextWindow: number,
  maxTokens: number | null = null
): CompressionConfig {
  const configured = section.threshold
  const fraction = contextWindow < SMALL_WINDOW ? Math.max(configured, SMALL_WINDOW_FLOOR) : configured
  return {
    enabled: section.enabled,
    // The agent compares its estimate with threshold × contextLength: that product is upstream's trigger.
    threshold: triggerTokens(contextWindow, fraction, maxTokens) / contextWindow,
    contextLength: contextWindow,
    targetRatio: section.targetRatio,
    protectLastN: section.protectLastN,
    requireCheckpoint: section.requireCheckpoint
  }
}
