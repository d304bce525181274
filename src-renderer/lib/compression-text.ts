import type { CompressionTrigger } from '@shared/contract'

const tokens = (n: number) => n.toLocaleString('en-US')
const percent = (share: number) => `${Math.round(share * 100)}%`

/**
 * Where a profile's sessions compress, as the host's agent computes it (settings.get's `compression`), and why that
 * differs from config.yaml's `compression.threshold` when it does: the page says what runs, not what was asked for.
 */
export function compressionText(c: CompressionTrigger): { trigger: string; why: string | null } {
  if (!c.enabled) return { trigger: 'compression off (compression.enabled in config.yaml)', why: null }
  const trigger = `compression at ${tokens(c.triggerTokens)} tokens (${percent(c.triggerTokens / c.contextWindow)} of the ${tokens(c.contextWindow)}-token context window)`
  if (!c.adjustments.length) return { trigger, why: null }
  const reasons = c.adjustments.map((a) =>
    a === 'small_window'
      ? 'raised to 75% for a window under 512K tokens'
      : a === 'max_tokens_reserved'
        ? `${tokens(c.maxTokens ?? 0)} tokens kept for the reply (model.max_tokens)`
        : a === 'min_tokens'
          ? 'raised to the 64,000-token minimum'
          : 'set to 85% of the rest, as that minimum would fill it'
  )
  return { trigger, why: `config.yaml asks for ${percent(c.configuredThreshold)}: ${reasons.join('; ')}` }
}
