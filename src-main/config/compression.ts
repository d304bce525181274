/**
 * config.yaml `compression` as upstream's agent reads it (its DEFAULT_CONFIG merged under the user's section, then
 * its agent's constructor; golden: test/fixtures/upstream/compression-defaults): on unless the section says otherwise,
 * threshold 0.5 raised to 0.75 for windows under 512K, target ratio 0.2 (kept within 0.1–0.8), protect_last_n 20,
 * and the model's context window. An untouched home compresses there, so it must here too, or a long session runs
 * into the provider's context limit where upstream would have rotated.
 *
 * One rule for both readers: the agent (host/services/agent-assembly.ts, through the resolved runtime) and the
 * Settings page (settings.ts), so the page says where compression really starts, not what config.yaml asks for.
 */
import type { CompressionAdjustment } from '@shared/contract'
import { pyFloatValue, pyStrAt } from '@shared/contract/py-text'

/** Windows below this many tokens compress no earlier than SMALL_WINDOW_FLOOR of the window (raise-only). */
const SMALL_WINDOW = 512_000
const SMALL_WINDOW_FLOOR = 0.75
/** Upstream never triggers below this many tokens, and refuses a smaller window outright. */
const MIN_TRIGGER_TOKENS = 64_000
/** Where the trigger goes when that minimum would fill the whole input budget. */
const FULL_WINDOW_TRIGGER = 0.85

/** What the agent compresses by, and why its trigger is not simply the configured share of the window. */
export interface CompressionPlan {
  enabled: boolean
  /** The trigger as a share of `contextLength`: the agent compares its estimate with threshold × contextLength. */
  threshold: number
  contextLength: number
  targetRatio: number
  protectLastN: number
  requireCheckpoint: boolean
  /** `compression.threshold` as config.yaml states it (0.5 when unset or not a number). */
  configuredThreshold: number
  /** The prompt size, in tokens, that triggers compression. */
  triggerTokens: number
  /** model.max_tokens: reserved out of the window for the reply (null when unset). */
  maxTokens: number | null
  /** What moved the trigger away from configuredThreshold × contextLength, in the order the rule applies them. */
  adjustments: CompressionAdjustment[]
}

/** A finite number as upstream's float() takes the value (a bool, numeric text too, in its syntax); anything else keeps `d`. */
function numeric(v: unknown, d: number): number {
  const n = pyFloatValue(v) ?? NaN
  return Number.isFinite(n) ? n : d
}

/**
 * The prompt size that triggers compression: `fraction` of the input budget (the window less the reply's
 * `maxTokens`, which the provider reserves out of it), never under 64K tokens, and 85% of the budget when that
 * minimum would fill it. A window under 64K (which upstream refuses to run) keeps the plain fraction, at most the
 * whole window (the agent reads no threshold above 1).
 */
function trigger(
  window: number,
  fraction: number,
  maxTokens: number | null,
  adjustments: CompressionAdjustment[]
): number {
  const reserved = Boolean(maxTokens && maxTokens > 0 && maxTokens < window)
  const budget = reserved ? window - maxTokens! : window
  if (reserved) adjustments.push('max_tokens_reserved')
  const share = Math.floor(budget * fraction)
  if (window < MIN_TRIGGER_TOKENS) return Math.min(share, window)
  if (share < MIN_TRIGGER_TOKENS) adjustments.push('min_tokens')
  const floored = Math.max(share, MIN_TRIGGER_TOKENS)
  if (floored < budget) return floored
  adjustments.push('full_window')
  return Math.max(1, Math.min(Math.floor(budget * FULL_WINDOW_TRIGGER), budget - 1))
}

/** `section`: config.yaml's `compression` ({} when absent); `maxTokens`: model.max_tokens (null: no reservation). */
export function compressionPlan(
  section: Record<string, unknown>,
  contextWindow: number,
  maxTokens: number | null = null
): CompressionPlan {
  // Upstream turns the value into text (Python's str()) and accepts true/1/yes: `enabled: false`, `enabled:` (None),
  // `off` and `1.0` ('1.0') turn it off; `1` and `0x1` ('1') keep it on.
  const enabled = !('enabled' in section) || ['true', '1', 'yes'].includes(pyStrAt(section, 'enabled').toLowerCase())
  const configuredThreshold = numeric(section.threshold, 0.5)
  const adjustments: CompressionAdjustment[] = []
  const small = contextWindow < SMALL_WINDOW && configuredThreshold < SMALL_WINDOW_FLOOR
  if (small) adjustments.push('small_window')
  const triggerTokens = trigger(contextWindow, small ? SMALL_WINDOW_FLOOR : configuredThreshold, maxTokens, adjustments)
  return {
    enabled,
    threshold: triggerTokens / contextWindow,
    contextLength: contextWindow,
    targetRatio: Math.min(0.8, Math.max(0.1, numeric(section.target_ratio, 0.2))),
    protectLastN: Math.trunc(numeric(section.protect_last_n, 20)),
    requireCheckpoint: section.checkpoint_required === true,
    configuredThreshold,
    triggerTokens,
    maxTokens,
    adjustments
  }
}
