/**
 * Typed accessors over a raw config mapping, with the upstream defaults. Every accessor tolerates wrong
 * types (a string where a mapping belongs, a word where a number belongs) by falling back to the default.
 */
import { isPlainObject, type RawConfig } from './load-config'

/** Upstream DEFAULT_MAX_ITERATIONS (the agent's tool-loop budget). */
export const DEFAULT_MAX_ITERATIONS = 90

export const DEFAULT_COMPRESSION = { enabled: true, threshold: 0.5, targetRatio: 0.2, protectLastN: 20 } as const

export function section(raw: RawConfig | null | undefined, name: string): Record<string, unknown> {
  const s = raw?.[name]
  return isPlainObject(s) ? s : {}
}

const num = (v: unknown, d: number, min = -Infinity): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min ? v : d
const int = (v: unknown, d: number, min = -Infinity): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min ? v : d
const bool = (v: unknown, d: boolean): boolean => (typeof v === 'boolean' ? v : d)
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null)

export interface ModelSettings {
  default: string | null
  provider: string | null
  baseUrl: string | null
  apiMode: string | null
  apiKeyEnv: string | null
  /** Inline key in config.yaml (upstream allows it for custom endpoints); prefer `.env`. */
  apiKey: string | null
  contextLength: number | null
  maxTokens: number | null
  capabilities: Record<string, unknown>
}

/** `model` is either a bare model name or `{default, provider, base_url, api_mode, …}`. */
export function modelSettings(raw: RawConfig): ModelSettings {
  const m = raw.model
  if (typeof m === 'string') {
    return {
      default: str(m),
      provider: null,
      baseUrl: null,
      apiMode: null,
      apiKeyEnv: null,
      apiKey: null,
      contextLength: null,
      maxTokens: null,
      capabilities: {}
    }
  }
  const s = isPlainObject(m) ? m : {}
  return {
    default: str(s.default) ?? str(s.model),
    provider: str(s.provider),
    baseUrl: str(s.base_url),
    apiMode: str(s.api_mode),
    apiKeyEnv: str(s.api_key_env),
    apiKey: str(s.api_key),
    contextLength: typeof s.context_length === 'number' ? int(s.context_length, 0, 1) || null : null,
    maxTokens: typeof s.max_tokens === 'number' ? int(s.max_tokens, 0, 1) || null : null,
    capabilities: isPlainObject(s.capabilities) ? s.capabilities : {}
  }
}

/**
 * `provider_limits:` in config.yaml (Caduceus-only; seconds / characters / counts). Absent or invalid values
 * fall back to the agent's defaults (call-limits.ts: 120 s inactivity, 15 min per call, 1,000,000 characters,
 * 2 retries, 30 s longest Retry-After honoured, 16 MB per reply, 4 MB per line/event, tool-call arguments up to
 * max_reply_chars). Read when an agent is built.
 */
export function providerLimitSettings(raw: RawConfig): {
  inactivityMs?: number
  totalMs?: number
  maxReplyChars?: number
  maxRetries?: number
  maxRetryWaitMs?: number
  maxResponseBytes?: number
  maxLineBytes?: number
  maxToolArgsChars?: number
} {
  const s = section(raw, 'provider_limits')
  const out: ReturnType<typeof providerLimitSettings> = {}
  const pos = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0
  if (pos(s.inactivity_timeout)) out.inactivityMs = Math.round((s.inactivity_timeout as number) * 1000)
  if (pos(s.call_timeout)) out.totalMs = Math.round((s.call_timeout as number) * 1000)
  if (pos(s.max_reply_chars)) out.maxReplyChars = Math.floor(s.max_reply_chars as number)
  if (pos(s.max_response_bytes)) out.maxResponseBytes = Math.floor(s.max_response_bytes as number)
  if (pos(s.max_line_bytes)) out.maxLineBytes = Math.floor(s.max_line_bytes as number)
  if (pos(s.max_tool_args_chars)) out.maxToolArgsChars = Math.floor(s.max_tool_args_chars as number)
  if (typeof s.max_retries === 'number' && Number.isInteger(s.max_retries) && s.max_retries >= 0 && s.max_retries <= 10)
    out.maxRetries = s.max_retries
  if (typeof s.max_retry_wait === 'number' && Number.isFinite(s.max_retry_wait) && s.max_retry_wait >= 0)
    out.maxRetryWaitMs = Math.round(s.max_retry_wait * 1000)
  return out
}

export function compressionSettings(raw: RawConfig) {
  const s = section(raw, 'compression')
  return {
    enabled: bool(s.enabled, DEFAULT_COMPRESSION.enabled),
    threshold: num(s.threshold, DEFAULT_COMPRESSION.threshold, 0),
    targetRatio: num(s.target_ratio, DEFAULT_COMPRESSION.targetRatio, 0),
    protectLastN: int(s.protect_last_n, DEFAULT_COMPRESSION.protectLastN, 0)
  }
}
export type CompressionSettings = ReturnType<typeof compressionSettings>

// `delegation.*` is read in one place, delegation/config.ts (loadDelegationConfig); a second reader here had drifted
// (max_iterations 90 vs 50) and no production code used it.

export function memoryProvider(raw: RawConfig): string | null {
  return str(section(raw, 'memory').provider)
}

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const
export type ReasoningEffort = (typeof EFFORTS)[number]

export function agentSettings(raw: RawConfig) {
  const s = section(raw, 'agent')
  const disabled = Array.isArray(s.disabled_toolsets)
    ? s.disabled_toolsets.filter((t): t is string => typeof t === 'string')
    : []
  const effort = typeof s.reasoning_effort === 'string' ? s.reasoning_effort.trim().toLowerCase() : ''
  return {
    // Upstream spells the budget `max_turns` in older configs.
    maxIterations: int(s.max_iterations, int(s.max_turns, DEFAULT_MAX_ITERATIONS, 1), 1),
    disabledToolsets: disabled,
    /** Set per turn on a cached agent (never part of the cache signature). */
    reasoningEffort: (EFFORTS as readonly string[]).includes(effort) ? (effort as ReasoningEffort) : null
  }
}
export type AgentSettings = ReturnType<typeof agentSettings>

/** Caduceus-only marker: a seeded demo home whose provider is the scripted server. */
export function isDemoConfig(raw: RawConfig): boolean {
  return section(raw, 'caduceus').demo === true
}
