/**
 * config.yaml `compression` as upstream's agent reads it (its DEFAULT_CONFIG merged under the user's section, then
 * its agent's constructor; golden: test/fixtures/upstream/compression-defaults): on unless the section says otherwise,
 * threshold 0.5 raised to 0.75 for windows under 512K, target ratio 0.2 (kept within 0.1–0.8), protect_last_n 20,
 * and the model's context window. An untouched home compresses there, so it must here too, or a long session runs
 * into the provider's context limit where upstream would have rotated.
 */
import type { resolveCompression } from '../../agent'

type CompressionConfig = NonNullable<Parameters<typeof resolveCompression>[0]>

/** Windows below this many tokens compress no earlier than SMALL_WINDOW_FLOOR of the window (raise-only). */
const SMALL_WINDOW = 512_000
const SMALL_WINDOW_FLOOR = 0.75

/** A number as upstream's float()/int() takes it: a YAML number or a numeric string; anything else keeps `d`. */
function numeric(v: unknown, d: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN
  return Number.isFinite(n) ? n : d
}

export function compressionFromConfig(section: Record<string, unknown>, contextWindow: number): CompressionConfig {
  // Upstream turns the value into text and accepts true/1/yes: `enabled: false`, `enabled:` (null) or `off` turn it off.
  const enabled = !('enabled' in section) || ['true', '1', 'yes'].includes(String(section.enabled).toLowerCase())
  const threshold = numeric(section.threshold, 0.5)
  return {
    enabled,
    threshold: contextWindow < SMALL_WINDOW ? Math.max(threshold, SMALL_WINDOW_FLOOR) : threshold,
    contextLength: contextWindow,
    targetRatio: Math.min(0.8, Math.max(0.1, numeric(section.target_ratio, 0.2))),
    protectLastN: Math.trunc(numeric(section.protect_last_n, 20)),
    requireCheckpoint: section.checkpoint_required === true
  }
}
