/**
 * The config values that, when edited, must rebuild a cached agent (hermes-spec §3.3, older variant:
 * an absent key contributes null). `model.default` is not listed: it is already the signature's model.
 */
import { isPlainObject } from '../config'

const CACHE_BUSTING_CONFIG_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['model', 'context_length'],
  ['model', 'max_tokens'],
  ['compression', 'enabled'],
  ['compression', 'threshold'],
  ['compression', 'codex_gpt55_autoraise'],
  ['compression', 'codex_app_server_auto'],
  ['compression', 'target_ratio'],
  ['compression', 'protect_last_n'],
  ['compression', 'codex_responses_native'],
  ['compression', 'codex_responses_compact_threshold'],
  ['compression', 'in_place'],
  ['compression', 'checkpoint_required'],
  ['compression', 'micro_compact'],
  ['compression', 'micro_compact_every_n_turns'],
  ['compression', 'micro_compact_defrag_threshold_tokens'],
  ['compression', 'progress_notices'],
  ['compression', 'model_thresholds'],
  ['compression', 'threshold_tokens'],
  ['compression', 'proactive_prune_tokens'],
  ['compression', 'proactive_prune_min_result_chars'],
  ['compression', 'proactive_prune_min_reclaim_tokens'],
  ['compression', 'min_tail_user_messages'],
  ['agent', 'disabled_toolsets'],
  ['memory', 'provider'],
  // Not in upstream's list, though its rule ("baked at construction") covers them: the built-in store takes its
  // limits when the agent is built, while the Memory page (and upstream's own CLI/desktop store) reads config.yaml
  // afresh, so without a rebuild a running session's tool kept refusing at a limit the page no longer shows.
  ['memory', 'memory_char_limit'],
  ['memory', 'user_char_limit'],
  ['checkpoints', 'enabled'],
  ['checkpoints', 'max_snapshots'],
  ['checkpoints', 'max_total_size_mb'],
  ['checkpoints', 'max_file_size_mb']
]

/** Anything that can name a provider's identity; `scope` says which profile is asking (plugins live per profile). */
export interface MemoryIdentitySource {
  identityFor(name: string, scope?: { profile: string; home: string }): Record<string, unknown>
  /**
   * Awaited before each turn's signature: load (once) what `identityFor` asks synchronously, e.g. a
   * plugin module's instance, so the very first signature already carries the provider's identity.
   */
  prepare?(profile: string, home: string): Promise<void>
}

export interface CacheBustingOptions {
  /** Live tool-registry generation (MCP reloads change tools without touching config); null on failure. */
  registryGeneration?: number | null | (() => number | null | undefined)
  memoryIdentity?: MemoryIdentitySource | null
  /** The profile the extraction is for (passed to the identity source). */
  scope?: { profile: string; home: string }
}

const FLAT_KEYS = CACHE_BUSTING_CONFIG_KEYS.map(([sec, key]) => [sec, key, `${sec}.${key}`] as const)
/** Keys a memory provider's identity may not overwrite (every one is always present in the result). */
const RESERVED = new Set<string>([...FLAT_KEYS.map(([, , flat]) => flat), 'tools.registry_generation'])

export function extractCacheBustingConfig(config: unknown, opts: CacheBustingOptions = {}): Record<string, unknown> {
  return { ...staticCacheBustingConfig(config), ...dynamicCacheBustingConfig(config, opts) }
}

/** The part that is a pure function of the config file (memoizable on the file's stat). */
export function staticCacheBustingConfig(config: unknown): Record<string, unknown> {
  const cfg = isPlainObject(config) ? config : {}
  const out: Record<string, unknown> = {}
  for (const [sec, key, flat] of FLAT_KEYS) {
    const s = cfg[sec]
    // Non-mapping sections (a typo'd `compression: broken`) count as missing.
    out[flat] = isPlainObject(s) && s[key] !== undefined ? s[key] : null
  }
  // Legacy `checkpoints: true|false`.
  if (typeof cfg.checkpoints === 'boolean') out['checkpoints.enabled'] = cfg.checkpoints
  return out
}

/** The part that can change with no file edit (MCP reloads, a provider's own config): re-read every turn. */
export function dynamicCacheBustingConfig(config: unknown, opts: CacheBustingOptions = {}): Record<string, unknown> {
  const cfg = isPlainObject(config) ? config : {}
  const out: Record<string, unknown> = { 'tools.registry_generation': readGeneration(opts.registryGeneration) }
  const provider = isPlainObject(cfg.memory) && typeof cfg.memory.provider === 'string' ? cfg.memory.provider : null
  if (provider && opts.memoryIdentity) {
    for (const [k, v] of Object.entries(opts.memoryIdentity.identityFor(provider, opts.scope))) {
      // A provider cannot overwrite a documented config key (e.g. `memory.provider`), nor repeat one.
      const flat = `memory.${k}`
      if (!RESERVED.has(flat) && !(flat in out)) out[flat] = v
    }
  }
  return out
}

function readGeneration(g: CacheBustingOptions['registryGeneration']): number | null {
  try {
    const v = typeof g === 'function' ? g() : g
    return typeof v === 'number' ? v : null
  } catch {
    return null // a generation that cannot be read: unknown
  }
}
