/**
 * Typed accessors over a raw config mapping, with the upstream defaults. Every accessor tolerates wrong
 * types (a string where a mapping belongs, a word where a number belongs) by falling back to the default.
 */
import type { BusyInputMode } from '@shared/contract'
import { pyFloatValue } from '@shared/contract/py-text'
import { isPlainObject, type RawConfig } from './load-config'
import { turnBudgets } from './turn-budget'

/** One `config.yaml` section as a mapping (`{}` when absent or not a mapping): what a subsystem's own typed reader starts from. */
export function readSection(raw: RawConfig | null | undefined, name: string): Record<string, unknown> {
  const s = raw?.[name]
  return isPlainObject(s) ? s : {}
}

const int = (v: unknown, d: number, min = -Infinity): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min ? v : d
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

/** A finite number as upstream's float() takes the value (a bool, numeric text too); anything else keeps `d`. */
function numeric(v: unknown, d: number): number {
  const n = pyFloatValue(v)
  return n !== null && Number.isFinite(n) ? n : d
}

/**
 * config.yaml `compression` as upstream's agent reads it (golden: test/fixtures/upstream/compression-defaults), before
 * the model's window moves the threshold (host/services/compression-settings.ts). The one reader: the Settings page
 * shows the `threshold` the agent starts from, so the two cannot disagree about a value written as text.
 */
function compressionSettings(raw: RawConfig) {
  const s = readSection(raw, 'compression')
  return {
    // Upstream turns the value into text and accepts true/1/yes: `enabled: false`, `enabled:` (null) or `off` turn it off.
    enabled: !('enabled' in s) || ['true', '1', 'yes'].includes(String(s.enabled).toLowerCase()),
    threshold: numeric(s.threshold, 0.5),
    targetRatio: Math.min(0.8, Math.max(0.1, numeric(s.target_ratio, 0.2))),
    protectLastN: Math.trunc(numeric(s.protect_last_n, 20)),
    requireCheckpoint: s.checkpoint_required === true
  }
}

// `delegation.*` is read in one place, delegation/config.ts (loadDelegationConfig); a second reader here had drifted
// (max_iterations 90 vs 50) and no production code used it.

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const
export type ReasoningEffort = (typeof EFFORTS)[number]

/**
 * `env`: where `HERMES_MAX_ITERATIONS` is read (the profile's `.env` over the process's, as upstream loads them).
 * `maxIterations` is the Session page's budget (`budgets.chat`); Infinity for none.
 */
export function agentSettings(raw: RawConfig, env: Readonly<Record<string, string | undefined>> = process.env) {
  const s = readSection(raw, 'agent')
  const disabled = Array.isArray(s.disabled_toolsets)
    ? s.disabled_toolsets.filter((t): t is string => typeof t === 'string')
    : []
  const effort = typeof s.reasoning_effort === 'string' ? s.reasoning_effort.trim().toLowerCase() : ''
  const budgets = turnBudgets(raw, env)
  return {
    maxIterations: budgets.chat.max,
    /** Each upstream program's reading of the budget (turn-budget.ts), with a warning where a value was left out. */
    budgets,
    disabledToolsets: disabled,
    /** Set per turn on a cached agent (never part of the cache signature). */
    reasoningEffort: (EFFORTS as readonly string[]).includes(effort) ? (effort as ReasoningEffort) : null,
    /** `compression:`, which upstream's agent reads beside these (its constructor's config). */
    compression: compressionSettings(raw)
  }
}
export type AgentSettings = ReturnType<typeof agentSettings>

/** Caduceus-only marker: a seeded demo home whose provider is the scripted server. */
export function isDemoConfig(raw: RawConfig): boolean {
  return readSection(raw, 'caduceus').demo === true
}

/**
 * The behaviour upstream's gateway gives a text message that arrives mid-turn: `display.busy_input_mode` (any other
 * value is `interrupt`), except that the legacy `display.busy_text_mode: queue` still queues text unless the input
 * mode is `steer` (test/fixtures/upstream/busy-input-mode: upstream's own reader on each config).
 */
export function busyInputMode(raw: RawConfig): BusyInputMode {
  const s = readSection(raw, 'display')
  const word = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '')
  const input = word(s.busy_input_mode)
  if (input === 'steer') return 'steer'
  return input === 'queue' || word(s.busy_text_mode) === 'queue' ? 'queue' : 'interrupt'
}
