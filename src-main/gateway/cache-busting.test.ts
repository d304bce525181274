import { describe, expect, it } from 'vitest'
import { extractCacheBustingConfig } from './cache-busting'

/** The documented config keys: what an empty config yields, less the live registry generation. */
const configKeys = Object.keys(extractCacheBustingConfig({})).filter((k) => k !== 'tools.registry_generation')

describe('extractCacheBustingConfig', () => {
  // seed 001: test_reads_compression_subkeys
  it('reads the listed compression sub-keys and ignores unlisted ones', () => {
    const out = extractCacheBustingConfig({
      compression: {
        enabled: false,
        threshold: 0.6,
        codex_gpt55_autoraise: false,
        codex_responses_native: true,
        codex_responses_compact_threshold: 120_000,
        in_place: false,
        checkpoint_required: true,
        micro_compact: true,
        micro_compact_every_n_turns: 2,
        micro_compact_defrag_threshold_tokens: 4000,
        target_ratio: 0.3,
        protect_last_n: 25,
        codex_app_server_auto: 'hermes',
        some_other_key: 'ignored'
      }
    })
    expect(out).toMatchObject({
      'compression.enabled': false,
      'compression.threshold': 0.6,
      'compression.codex_gpt55_autoraise': false,
      'compression.codex_responses_native': true,
      'compression.codex_responses_compact_threshold': 120_000,
      'compression.in_place': false,
      'compression.checkpoint_required': true,
      'compression.micro_compact': true,
      'compression.micro_compact_every_n_turns': 2,
      'compression.micro_compact_defrag_threshold_tokens': 4000,
      'compression.target_ratio': 0.3,
      'compression.protect_last_n': 25,
      'compression.codex_app_server_auto': 'hermes'
    })
    expect(out).not.toHaveProperty('compression.some_other_key')
  })

  it('lists the 14 upstream baseline keys', () => {
    const listed = new Set(configKeys)
    for (const k of [
      'model.context_length',
      'model.max_tokens',
      'compression.enabled',
      'compression.threshold',
      'compression.codex_gpt55_autoraise',
      'compression.codex_app_server_auto',
      'compression.target_ratio',
      'compression.protect_last_n',
      'agent.disabled_toolsets',
      'memory.provider',
      'checkpoints.enabled',
      'checkpoints.max_snapshots',
      'checkpoints.max_total_size_mb',
      'checkpoints.max_file_size_mb'
    ])
      expect(listed.has(k)).toBe(true)
    expect(listed.has('model.default')).toBe(false)
  })

  // seed 001: test_missing_keys_yield_none
  it('absent keys are present with null', () => {
    const out = extractCacheBustingConfig({})
    expect(configKeys.length).toBeGreaterThanOrEqual(14)
    for (const k of configKeys) expect(out[k]).toBeNull()
    // …and each one is read from its own section when present.
    const full: Record<string, Record<string, string>> = {}
    for (const k of configKeys) {
      const [sec, key] = k.split('.') as [string, string]
      ;(full[sec] ??= {})[key] = k
    }
    const read = extractCacheBustingConfig(full)
    for (const k of configKeys) expect(read[k]).toBe(k)
  })

  // seed 001: test_non_dict_section_treated_as_missing
  it('a non-mapping section counts as missing', () => {
    const out = extractCacheBustingConfig({ compression: 'broken', model: { context_length: 100_000 } })
    expect(out['compression.enabled']).toBeNull()
    expect(out['compression.threshold']).toBeNull()
    expect(out['model.context_length']).toBe(100_000)
  })

  // seed 001: test_none_config_is_safe
  it('a null config is safe', () => {
    const out = extractCacheBustingConfig(null)
    for (const k of configKeys) expect(out[k]).toBeNull()
    expect(out).toHaveProperty(['tools.registry_generation'])
  })

  it('legacy `checkpoints: true` sets checkpoints.enabled', () => {
    expect(extractCacheBustingConfig({ checkpoints: true })['checkpoints.enabled']).toBe(true)
    expect(extractCacheBustingConfig({ checkpoints: false })['checkpoints.enabled']).toBe(false)
  })

  // seed 001: test_extract_includes_live_tool_registry_generation
  it('includes the live tool registry generation (null on failure)', () => {
    expect(extractCacheBustingConfig({}, { registryGeneration: () => 12345 })['tools.registry_generation']).toBe(12345)
    expect(extractCacheBustingConfig({}, { registryGeneration: 7 })['tools.registry_generation']).toBe(7)
    expect(
      extractCacheBustingConfig(
        {},
        {
          registryGeneration: () => {
            throw new Error('x')
          }
        }
      )['tools.registry_generation']
    ).toBeNull()
  })
  // seed 001's provider-identity cases run against the production loader: host/memory-identity.test.ts.
})
