// Seed 000 (PLG-11), provider instances: one instance is bound to one profile for good; identity (not
// equality) decides; an instance that can't be tracked fails closed only when multiplexed.
import { describe, expect, it } from 'vitest'
import { withHomeOverride } from '../scope'
import { multiplexed } from '../scope/test-support'
import { buildMemoryManagerForAgent } from './agent-build'
import { claimInstance, INSTANCE_SHARED_CODE } from './caller-scope'
import { HOOK_TOOL, InstanceScopedProvider, SealedProvider, ValueEqualProvider } from './test-fixtures/seed-providers'
import { buildManager, makeHomes, setupCallerScopeTest } from './test-fixtures/harness'

const logs = setupCallerScopeTest(() => {
  InstanceScopedProvider.events = []
})

describe('memory caller scope: provider instances (seed 000)', () => {
  // seed 000: test_one_provider_instance_is_never_served_to_a_second_profile
  it('never serves one provider instance to a second profile', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    await multiplexed(async () => {
      const shared = new InstanceScopedProvider()
      const alpha = await buildManager(alphaHome, shared)
      const beta = await buildManager(betaHome, shared)
      expect(shared.home).toBe(alphaHome)
      expect(beta.hasTool(HOOK_TOOL)).toBe(false)
      expect(beta.providers).toEqual([])
      expect(await withHomeOverride(alphaHome, () => alpha.handleToolCall(HOOK_TOOL, {}))).toBe(
        JSON.stringify({ ok: true })
      )
    })
    expect(InstanceScopedProvider.events.map((e) => e[1])).toEqual([alphaHome])
    const logged = logs
      .scope()
      .map((r) => r.message)
      .join('\n')
    expect(logged).toContain(INSTANCE_SHARED_CODE)
    expect(logged).toContain(betaHome)
  })

  // seed 000: test_agent_whose_provider_instance_is_refused_is_told_and_runs_without_it
  it('drops a refused provider instance on the agent-build path, warns once, and never logs it as activated', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    await multiplexed(async () => {
      const shared = new InstanceScopedProvider()
      await buildManager(alphaHome, shared)
      const built = await withHomeOverride(betaHome, () =>
        buildMemoryManagerForAgent(
          { memory: { provider: 'instancescoped', memory_enabled: false, user_profile_enabled: false } },
          betaHome,
          () => shared,
          { sessionId: 's-beta', platform: 'api_server', log: logs.sink }
        )
      )
      expect(built.manager).toBeNull()
      expect(logs.records.some((r) => r.message.includes('activated'))).toBe(false)
      expect(built.warnings).toHaveLength(1)
      const [notice] = built.warnings
      expect(notice!.level).toBe('warn')
      expect(notice!.text).toContain('instancescoped')
      expect(notice!.text).not.toContain(alphaHome)
      expect(notice!.text).not.toContain(betaHome)

      // With the built-in store enabled the agent keeps its own memory and still gets exactly one notice.
      const withBuiltin = await withHomeOverride(betaHome, () =>
        buildMemoryManagerForAgent({ memory: { provider: 'instancescoped' } }, betaHome, () => shared, {
          sessionId: 's-beta',
          platform: 'api_server',
          log: logs.sink
        })
      )
      expect(withBuiltin.manager!.providers.map((p) => p.name)).toEqual(['builtin'])
      expect(withBuiltin.warnings).toHaveLength(1)
      expect(shared.home).toBe(alphaHome)
    })
  })

  // seed 000: test_unhashable_shared_provider_is_refused_for_a_second_profile
  it('refuses a sealed (non-extensible) shared instance for a second profile: tracking needs only identity', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    await multiplexed(async () => {
      const shared = new SealedProvider()
      expect(Object.isExtensible(shared)).toBe(false)
      const alpha = await buildManager(alphaHome, shared)
      const beta = await buildManager(betaHome, shared)
      expect(shared.home).toBe(alphaHome)
      expect(alpha.providers).toEqual([shared])
      expect(beta.providers).toEqual([])
    })
  })

  // seed 000: test_value_equal_distinct_instances_are_each_served
  it('serves value-equal but distinct instances each to its own profile', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    await multiplexed(async () => {
      const first = new ValueEqualProvider()
      const second = new ValueEqualProvider()
      expect(first.equals(second)).toBe(true)
      const alpha = await buildManager(alphaHome, first)
      const beta = await buildManager(betaHome, second)
      expect([first.home, second.home]).toEqual([alphaHome, betaHome])
      expect(alpha.providers).toEqual([first])
      expect(beta.providers).toEqual([second])
      expect(alpha.providers[0]).toBe(first)
      expect(beta.providers[0]).toBe(second)
    })
  })

  // seed 000: test_untrackable_provider_instance_fails_closed_only_when_multiplexed
  it('fails closed on an untrackable instance only when multiplexed', () => {
    const { alpha: alphaHome } = makeHomes()
    const untrackable = () => Object.preventExtensions({ name: 'native', claimable: false as const })
    expect(claimInstance(untrackable(), alphaHome)).toBe(true)
    expect(claimInstance('not-an-object', alphaHome)).toBe(true)
    multiplexed(() => {
      expect(claimInstance(untrackable(), alphaHome)).toBe(false)
      expect(claimInstance('not-an-object', alphaHome)).toBe(false)
    })
  })
})
