// Seed 000 (PLG-11): a memory-provider tool call belongs to the calling turn's profile. Driven through the
// real sequential and concurrent dispatch of the agent's ToolRegistry with real MemoryManagers.
import { describe, expect, it } from 'vitest'
import { getHomeOverride, withHomeOverride } from '../scope'
import { multiplexed } from '../scope/test-support'
import { BareSignatureProvider, ProcessWideProvider } from './test-fixtures/seed-providers'
import {
  buildAgent,
  setupCallerScopeTest,
  concurrent,
  expectGenericRefusal,
  makeHomes,
  sequential,
  tick
} from './test-fixtures/harness'

const logs = setupCallerScopeTest(() => {
  ProcessWideProvider.reset()
  BareSignatureProvider.argCounts = []
})

// NO USER ACTION REACHES THE REFUSALS MARKED "unreachable" below (audit: the three caller-scope refusals of
// seed 000 that were test-only). Caduceus builds each memory manager for one agent of one profile and
// initializes it there (host/agent-assembly.ts → buildMemoryManagerForAgent with the profile's home, so it
// always knows its profile); every turn, tool call and hook of that agent runs inside runInProfileScope of
// its own home (gateway/turn-runner.ts `run`; soft releases in the owner's scope, gateway/agent-cache.ts);
// agents are cached per profile+session key, so one profile's turn never holds another's manager; and
// children and cron runs have no memory at all. No page, CLI command, API request or cron run can make a
// manager be called from another profile's scope, without a caller scope on a multiplexed host, or before
// it learned its profile. The refusals stay as upstream's fail-closed guard against a host or plugin
// calling outside a turn; these tests pin them.
describe('memory caller scope: tool dispatch (seed 000)', () => {
  // seed 000: test_interleaved_turns_of_two_profiles_write_to_their_own_stores
  it('interleaved turns of two profiles write to their own stores', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    const alpha = await buildAgent(alphaHome, 'agent:alpha:api_server:dm:1')
    const beta = await buildAgent(betaHome, 'agent:beta:api_server:dm:2') // initialized last: owns the process-wide binding
    let started = 0
    const turn = (agent: typeof alpha, home: string, label: string) =>
      withHomeOverride(home, async () => {
        started++
        while (started < 2) await tick() // barrier: both turns are in flight before either calls
        for (let i = 0; i < 20; i++) {
          const result = await (i % 2 ? sequential : concurrent)(agent, `${label}-${i}`)
          expect(result).toEqual({ ok: true })
          await tick()
        }
      })
    await Promise.all([turn(alpha, alphaHome, 'alpha'), turn(beta, betaHome, 'beta')])
    const stores = ProcessWideProvider.storesObject()
    const expected = (label: string) => Array.from({ length: 20 }, (_, i) => `${label}-${i}`).sort()
    expect([...(stores[alphaHome] ?? [])].sort()).toEqual(expected('alpha'))
    expect([...(stores[betaHome] ?? [])].sort()).toEqual(expected('beta'))
    expect(Object.keys(stores).sort()).toEqual([alphaHome, betaHome].sort())
    // The caller's gateway session key still travels with each call.
    expect(new Set(ProcessWideProvider.calls.map((c) => c.callerGsk))).toEqual(
      new Set(['agent:alpha:api_server:dm:1', 'agent:beta:api_server:dm:2'])
    )
  })

  // seed 000: test_call_from_another_profiles_scope_is_refused — unreachable (see above)
  it("refuses a call from another profile's scope", async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    const alpha = await buildAgent(alphaHome, 'agent:alpha:api_server:dm:1')
    for (const dispatch of [sequential, concurrent]) {
      // the turn's scope names a profile this manager never served
      const result = await withHomeOverride(betaHome, () => dispatch(alpha, 'stray'))
      expectGenericRefusal(result, logs.records, alphaHome, betaHome)
    }
    expect(ProcessWideProvider.storesObject()).toEqual({})
  })

  // seed 000: test_multiplexed_call_with_no_known_profile_is_refused — unreachable (see above)
  it('refuses a multiplexed call when the manager knows no profile', async () => {
    const { alpha: alphaHome } = makeHomes()
    await multiplexed(async () => {
      const agent = await buildAgent(alphaHome, '', new ProcessWideProvider(), { initialize: false })
      const result = await withHomeOverride(alphaHome, () => sequential(agent, 'orphan'))
      expectGenericRefusal(result, logs.records, alphaHome)
    })
    expect(ProcessWideProvider.storesObject()).toEqual({})
  })

  // seed 000: test_multiplexed_call_without_a_caller_scope_is_refused_even_for_the_process_profile — unreachable
  // (see above)
  it("refuses a multiplexed call without a caller scope, even for the process's own profile", async () => {
    // On a multiplexed process a call that names no profile is not proof it came from that profile's turn.
    const { alpha: alphaHome } = makeHomes()
    process.env.HERMES_HOME = alphaHome
    await multiplexed(async () => {
      const alpha = await buildAgent(alphaHome, 'agent:alpha:api_server:dm:1')
      for (const dispatch of [sequential, concurrent]) {
        expect(getHomeOverride()).toBeNull() // the call names no profile
        const result = await dispatch(alpha, 'unscoped')
        expectGenericRefusal(result, logs.records, alphaHome)
      }
    })
    expect(ProcessWideProvider.storesObject()).toEqual({})
  })

  // seed 000: test_single_profile_process_keeps_working_without_initialize
  it('keeps a single-profile process working without initialize', async () => {
    const { alpha: alphaHome } = makeHomes()
    const agent = await buildAgent(alphaHome, '', new ProcessWideProvider(), { initialize: false })
    expect(await withHomeOverride(alphaHome, () => sequential(agent, 'plain'))).toEqual({ ok: true })
  })

  // seed 000: test_two_argument_provider_signature_still_receives_its_calls
  it('still delivers calls to a provider with the two-argument handleToolCall shape', async () => {
    const { alpha: alphaHome } = makeHomes()
    const agent = await buildAgent(alphaHome, 'agent:alpha:api_server:dm:1', new BareSignatureProvider())
    await withHomeOverride(alphaHome, async () => {
      expect(await sequential(agent, 'one')).toEqual({ ok: true })
      expect(await concurrent(agent, 'two')).toEqual({ ok: true })
    })
    expect(ProcessWideProvider.storesObject()).toEqual({ bare: ['one', 'two'] })
    expect(BareSignatureProvider.argCounts).toEqual([2, 2])
  })
})
