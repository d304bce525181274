import { describe, expect, it } from 'vitest'
import { agentConfigSignature, withTurnOverrides, type SignatureRuntime } from './signature'

const sig = (model: string, runtime: SignatureRuntime, toolsets: string[] = ['hermes-desktop'], extra: object = {}) =>
  agentConfigSignature({ model, runtime, enabledToolsets: toolsets, ephemeralPrompt: '', ...extra })

describe('agentConfigSignature', () => {
  const rt = { apiKey: 'sk-test12345678', baseUrl: 'https://openrouter.ai/api/v1', provider: 'openrouter' }

  it('same inputs give the same 16-hex signature', () => {
    expect(sig('m', rt)).toBe(sig('m', { ...rt }))
    expect(sig('m', rt)).toMatch(/^[0-9a-f]{16}$/)
  })

  // seed 001: test_model_change_different_signature
  it('model change changes the signature', () => {
    expect(sig('claude-sonnet-4', rt)).not.toBe(sig('claude-opus-4.6', rt))
  })

  // seed 001: test_same_token_prefix_different_full_token_changes_signature
  it('tokens sharing a JWT-style prefix do not collide', () => {
    const a = {
      apiKey: 'eyJhbGci.token-for-account-a',
      baseUrl: 'https://chatgpt.com/backend-api/codex',
      provider: 'openai-codex',
      apiMode: 'codex_responses'
    }
    const b = { ...a, apiKey: 'eyJhbGci.token-for-account-b' }
    expect(a.apiKey.slice(0, 8)).toBe(b.apiKey.slice(0, 8))
    expect(sig('gpt-5.3-codex', a)).not.toBe(sig('gpt-5.3-codex', b))
  })

  // seed 001: test_provider_change_different_signature
  it('provider change changes the signature', () => {
    const other = { apiKey: 'sk-test12345678', baseUrl: 'https://api.anthropic.com', provider: 'anthropic' }
    expect(sig('claude-sonnet-4', rt)).not.toBe(sig('claude-sonnet-4', other))
  })

  // seed 001: test_capability_change_different_signature
  it('capability change changes the signature', () => {
    const base = { apiKey: 'sk-test12345678', baseUrl: 'https://proxy.example/v1', provider: 'custom' }
    expect(sig('gpt-5.6', { ...base, capabilities: { openai_native_compaction: true } }, [])).not.toBe(
      sig('gpt-5.6', { ...base, capabilities: { openai_native_compaction: false } }, [])
    )
  })

  it('requested provider, api mode, base url, toolsets, ephemeral prompt and skipContextFiles all count', () => {
    const base = sig('m', rt)
    expect(sig('m', { ...rt, requestedProvider: 'custom:x' })).not.toBe(base)
    expect(sig('m', { ...rt, apiMode: 'anthropic_messages' })).not.toBe(base)
    expect(sig('m', { ...rt, baseUrl: 'https://other/v1' })).not.toBe(base)
    expect(sig('m', rt, ['hermes-desktop', 'web'])).not.toBe(base)
    expect(sig('m', rt, ['b', 'a'])).toBe(sig('m', rt, ['a', 'b']))
    expect(sig('m', rt, undefined, { ephemeralPrompt: 'be brief' })).not.toBe(base)
    expect(sig('m', rt, undefined, { skipContextFiles: true })).not.toBe(base)
  })

  // seed 001: test_compression_threshold_change_busts_cache
  it('a cache-busting config change changes the signature', () => {
    const r = { apiKey: 'k', baseUrl: 'u', provider: 'p' }
    expect(sig('m', r, [], { cacheKeys: { 'compression.threshold': 0.5 } })).not.toBe(
      sig('m', r, [], { cacheKeys: { 'compression.threshold': 0.75 } })
    )
    for (const k of ['model.context_length', 'model.max_tokens', 'compression.enabled', 'tools.registry_generation']) {
      expect(sig('m', r, [], { cacheKeys: { [k]: 1 } })).not.toBe(sig('m', r, [], { cacheKeys: { [k]: 2 } }))
    }
  })

  // seed 001: test_cache_keys_key_order_does_not_matter
  it('cache key order does not matter', () => {
    const r = { apiKey: 'k', baseUrl: 'u', provider: 'p' }
    expect(sig('m', r, [], { cacheKeys: { 'model.context_length': 200_000, 'compression.threshold': 0.5 } })).toBe(
      sig('m', r, [], { cacheKeys: { 'compression.threshold': 0.5, 'model.context_length': 200_000 } })
    )
  })

  it('cacheKeys omitted ≡ null ≡ {}', () => {
    const r = { apiKey: 'k' }
    expect(sig('m', r)).toBe(sig('m', r, undefined, { cacheKeys: null }))
    expect(sig('m', r)).toBe(sig('m', r, undefined, { cacheKeys: {} }))
  })

  // seed 001: test_signature_omits_user_id_when_absent
  it('omitted user ids equal explicit null; different users differ', () => {
    const r = { provider: 'anthropic', apiKey: 'k', baseUrl: '', apiMode: 'chat_completions' }
    expect(sig('claude-sonnet-4', r)).toBe(sig('claude-sonnet-4', r, undefined, { userId: null, userIdAlt: null }))
    expect(sig('m', r, undefined, { userId: 'alice' })).not.toBe(sig('m', r, undefined, { userId: 'bob' }))
    expect(sig('m', r, undefined, { userIdAlt: 'a' })).not.toBe(sig('m', r))
  })

  it('reasoning config is not an input (changing it cannot rebuild)', () => {
    const withReasoning = { ...rt, reasoningConfig: { effort: 'high' } } as SignatureRuntime
    expect(sig('m', withReasoning)).toBe(sig('m', rt))
  })
})

describe('withTurnOverrides', () => {
  const base = 'abcdef0123456789'
  it('leaves the profile signature alone when the turn brings nothing', () => {
    expect(withTurnOverrides(base, {})).toBe(base)
    expect(withTurnOverrides(base, { ephemeralPrompt: '', model: null, runtime: null })).toBe(base)
  })
  it('changes with each override and with the overriding runtime’s key', () => {
    const seen = new Set([
      base,
      withTurnOverrides(base, { ephemeralPrompt: 'Be formal.' }),
      withTurnOverrides(base, { ephemeralPrompt: 'Be casual.' }),
      withTurnOverrides(base, { model: 'm2' }),
      withTurnOverrides(base, { provider: 'openai' }),
      withTurnOverrides(base, { baseUrl: 'http://127.0.0.1:1/v1' }),
      withTurnOverrides(base, { provider: 'openai', runtime: { apiKey: 'k1', provider: 'openai' } }),
      withTurnOverrides(base, { provider: 'openai', runtime: { apiKey: 'k2', provider: 'openai' } })
    ])
    expect(seen.size).toBe(8)
  })
})
