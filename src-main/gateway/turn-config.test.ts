/**
 * The memoized turn config must be indistinguishable from resolving everything fresh: same signature,
 * and any edit to config.yaml / .env / a vault / a live hook changes it on the very next call.
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig, resolveRuntime } from '../config'
import { EnvFileVault, envPath, SecretMask, secretsFor, updateEnvFile, type SecretVault } from '../secrets'

const envVault = new EnvFileVault()
import { agentConfigSignature } from './signature'
import { extractCacheBustingConfig, type MemoryIdentitySource } from './cache-busting'
import { TurnConfigResolver } from './turn-config'

function home(config = 'model: {default: m1, provider: openai}\n', env = 'OPENAI_API_KEY=sk-aaaa-0001\n') {
  const dir = mkdtempSync(join(tmpdir(), 'cad-tc-'))
  writeFileSync(join(dir, 'config.yaml'), config)
  writeFileSync(join(dir, '.env'), env)
  return dir
}

/** The pre-memo computation, straight from the config module. */
function fresh(
  dir: string,
  extra: {
    generation?: number | null
    toolsets?: string[]
    vault?: SecretVault
    memoryIdentity?: MemoryIdentitySource
  } = {}
) {
  const vault = extra.vault ?? envVault
  const secrets = secretsFor(dir, vault)
  const runtime = resolveRuntime(dir, { vault, secrets })
  const config = loadConfig(dir).raw
  return agentConfigSignature({
    model: runtime.model,
    runtime,
    enabledToolsets: extra.toolsets ?? [],
    ephemeralPrompt: '',
    skipContextFiles: false,
    cacheKeys: extractCacheBustingConfig(config, {
      registryGeneration: extra.generation ?? null,
      memoryIdentity: extra.memoryIdentity
    })
  })
}

describe('TurnConfigResolver', () => {
  it('gives the same signature as a fresh resolution, and the same one again while nothing changed', () => {
    const dir = home(
      'model: {default: m1, provider: openai}\ncompression: {threshold: 0.5}\nagent: {max_turns: 7, reasoning_effort: low}\n'
    )
    const r = new TurnConfigResolver({ vault: envVault })
    const a = r.resolve('default', dir)
    expect(a.signature).toBe(fresh(dir))
    expect(r.resolve('default', dir).signature).toBe(a.signature)
    expect(a).toMatchObject({
      budgets: { chat: { max: 7 }, gateway: { max: 7 } },
      reasoningConfig: { enabled: true, effort: 'low' },
      secrets: { OPENAI_API_KEY: 'sk-aaaa-0001' }
    })
    expect(a.runtime).toMatchObject({ model: 'm1', provider: 'openai', apiKey: 'sk-aaaa-0001' })
  })

  it('hands out fresh secrets and reasoning objects each call (callers may keep or mutate them)', () => {
    const dir = home()
    const r = new TurnConfigResolver({ vault: envVault })
    const a = r.resolve('default', dir)
    a.secrets.OPENAI_API_KEY = 'tampered'
    expect(r.resolve('default', dir).secrets.OPENAI_API_KEY).toBe('sk-aaaa-0001')
  })

  it('a config.yaml edit changes the signature on the next call (model, cache-busting key)', () => {
    const dir = home()
    const r = new TurnConfigResolver({ vault: envVault })
    const before = r.resolve('default', dir).signature
    // A different length: an in-place same-size rewrite inside one mtime tick is invisible to any stat stamp.
    writeFileSync(join(dir, 'config.yaml'), 'model: {default: m22, provider: openai}\n')
    const model = r.resolve('default', dir)
    expect(model.signature).not.toBe(before)
    expect(model.signature).toBe(fresh(dir))
    writeFileSync(join(dir, 'config.yaml'), 'model: {default: m22, provider: openai}\ncompression: {enabled: false}\n')
    expect(r.resolve('default', dir).signature).not.toBe(model.signature)
    expect(r.resolve('default', dir).signature).toBe(fresh(dir))
  })

  it("a memory char limit edit changes the signature: the cached agent's memory tool takes the new limit", () => {
    const dir = home('model: {default: m1, provider: openai}\n')
    const r = new TurnConfigResolver({ vault: envVault })
    const before = r.resolve('default', dir).signature
    writeFileSync(
      join(dir, 'config.yaml'),
      'model: {default: m1, provider: openai}\nmemory: {memory_char_limit: 4000}\n'
    )
    const memory = r.resolve('default', dir).signature
    expect(memory).not.toBe(before)
    expect(memory).toBe(fresh(dir))
    writeFileSync(
      join(dir, 'config.yaml'),
      'model: {default: m1, provider: openai}\nmemory: {memory_char_limit: 4000, user_char_limit: 900}\n'
    )
    expect(r.resolve('default', dir).signature).not.toBe(memory)
  })

  it('a reasoning-only edit keeps the signature but updates the per-turn setting', () => {
    const dir = home()
    const r = new TurnConfigResolver({ vault: envVault })
    const before = r.resolve('default', dir)
    writeFileSync(join(dir, 'config.yaml'), 'model: {default: m1, provider: openai}\nagent: {reasoning_effort: high}\n')
    const after = r.resolve('default', dir)
    expect(after.signature).toBe(before.signature)
    expect(after.reasoningConfig).toEqual({ enabled: true, effort: 'high' })
  })

  it("a same-length key written the app's way (temp file + rename) changes the signature", () => {
    const dir = home()
    const r = new TurnConfigResolver({ vault: envVault })
    const before = r.resolve('default', dir)
    updateEnvFile(envPath(dir), 'OPENAI_API_KEY', 'sk-bbbb-0002')
    const after = r.resolve('default', dir)
    expect(after.signature).not.toBe(before.signature)
    expect(after.runtime.apiKey).toBe('sk-bbbb-0002')
    expect(after.signature).toBe(fresh(dir))
  })

  it('a replaced or deleted .env / config.yaml is noticed', () => {
    const dir = home()
    const r = new TurnConfigResolver({ vault: envVault })
    const a = r.resolve('default', dir).signature
    writeFileSync(join(dir, 'other.env'), 'OPENAI_API_KEY=sk-cccc-0003-longer\n')
    renameSync(join(dir, 'other.env'), join(dir, '.env'))
    const b = r.resolve('default', dir)
    expect(b.signature).not.toBe(a)
    expect(b.runtime.apiKey).toBe('sk-cccc-0003-longer')
    renameSync(join(dir, 'config.yaml'), join(dir, 'config.old'))
    const c = r.resolve('default', dir)
    expect(c.runtime.model).not.toBe('m1')
    expect(c.signature).toBe(fresh(dir))
  })

  it('live hooks are re-read every call: registry generation, toolsets, memory identity', () => {
    const dir = home('model: {default: m1, provider: openai}\nmemory: {provider: peer}\n')
    let generation = 1
    let toolsets = ['web']
    let peer = 'alice'
    // A live identity source (the production one is host/memory-providers/provider-host.ts, tested in memory-identity.test.ts).
    const memoryIdentity: MemoryIdentitySource = { identityFor: () => ({ peer }) }
    const r = new TurnConfigResolver({
      vault: envVault,
      registryGeneration: () => generation,
      enabledToolsets: () => toolsets,
      memoryIdentity
    })
    const sig = () => r.resolve('default', dir).signature
    const s1 = sig()
    expect(s1).toBe(fresh(dir, { generation, toolsets, memoryIdentity }))
    generation = 2
    const s2 = sig()
    expect(s2).not.toBe(s1)
    toolsets = ['web', 'terminal']
    const s3 = sig()
    expect(s3).not.toBe(s2)
    peer = 'bob'
    const s4 = sig()
    expect(s4).not.toBe(s3)
    expect(s4).toBe(fresh(dir, { generation, toolsets, memoryIdentity }))
    peer = 'alice'
    toolsets = ['web']
    generation = 1
    expect(sig()).toBe(s1)
  })

  it('a non-file vault is read every call: a key changed there (no file touched) changes the signature', () => {
    const dir = home()
    let key = 'sk-vault-0001'
    const vault: SecretVault = {
      storage: 'safe_storage',
      read: () => ({ OPENAI_API_KEY: key }),
      write: () => {},
      mask: new SecretMask()
    }
    const r = new TurnConfigResolver({ vault })
    const a = r.resolve('default', dir)
    expect(a.runtime.apiKey).toBe('sk-vault-0001')
    key = 'sk-vault-0002'
    const b = r.resolve('default', dir)
    expect(b.runtime.apiKey).toBe('sk-vault-0002')
    expect(b.signature).not.toBe(a.signature)
    expect(b.signature).toBe(fresh(dir, { vault }))
  })

  it('a malformed config.yaml is reported (configError) without running the hooks, and recovers', () => {
    const dir = home()
    let hooks = 0
    const r = new TurnConfigResolver({
      vault: envVault,
      enabledToolsets: () => {
        hooks++
        return []
      }
    })
    writeFileSync(join(dir, 'config.yaml'), 'model: [\n')
    expect(r.resolve('default', dir).runtime.configError?.code).toBe('malformed_config')
    expect(hooks).toBe(0)
    writeFileSync(join(dir, 'config.yaml'), 'model: {default: m3, provider: openai}\n')
    const ok = r.resolve('default', dir)
    expect(ok.runtime.configError).toBeNull()
    expect(ok.signature).toBe(fresh(dir))
  })

  it('a missing home resolves to defaults without throwing', () => {
    const r = new TurnConfigResolver({ vault: envVault })
    const missing = join(tmpdir(), `cad-tc-missing-${process.pid}-${Date.now()}`)
    expect(() => r.resolve('default', missing)).not.toThrow()
    expect(r.resolve('default', missing).signature).toBe(fresh(missing))
  })
})
