// Seed 000 (PLG-11), provider-side contract and lifecycle hooks: every hook has its own guard, background
// hooks run under the owning profile explicitly, and two profiles' interleaved turns never cross.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../host/log/log'
import { homeKey, isMultiplexActive, withHomeOverride } from '../scope'
import { withSecretScope } from '../scope/scope'
import { multiplexed } from '../scope/test-support'
import { REFUSAL_CODE } from './caller-scope'
import { CALLER_SCOPE_LOGGER } from './log'
import { memoryLogSink } from '../host/services/agent-assembly'
import { HOOK_TOOL, InstanceScopedProvider } from './test-fixtures/seed-providers'
import {
  buildAgent,
  buildManager,
  setupCallerScopeTest,
  concurrent,
  HOOKS,
  makeHomes,
  refusedHooks,
  sequential,
  tick
} from './test-fixtures/harness'

const logs = setupCallerScopeTest(() => {
  InstanceScopedProvider.events = []
})

const ALL_HOOKS = new Set(Object.keys(HOOKS))

// The refusals here are the hook side of the ones in caller-scope.dispatch.test.ts; the same reason applies:
// no user action calls a manager's hooks from another profile's scope or unscoped on a multiplexed host
// (see the comment block there).
describe('memory caller scope: lifecycle hooks (seed 000)', () => {
  // seed 000: test_lifecycle_hooks_from_another_profiles_scope_are_refused
  it("refuses every lifecycle hook from another profile's scope, each with its own log record", async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    const alpha = await buildManager(alphaHome)
    await withHomeOverride(betaHome, async () => {
      for (const hook of Object.values(HOOKS)) await hook(alpha)
    })
    expect(InstanceScopedProvider.events).toEqual([])
    expect(refusedHooks(logs.records)).toEqual(ALL_HOOKS)
    expect(logs.scope().every((r) => r.message.includes(betaHome))).toBe(true)
  })

  // seed 000: test_multiplexed_lifecycle_hooks_without_a_caller_scope_are_refused
  it('refuses every multiplexed lifecycle hook that carries no caller scope', async () => {
    const { alpha: alphaHome } = makeHomes()
    process.env.HERMES_HOME = alphaHome
    await multiplexed(async () => {
      const alpha = await buildManager(alphaHome)
      for (const hook of Object.values(HOOKS)) await hook(alpha)
    })
    expect(InstanceScopedProvider.events).toEqual([])
    expect(refusedHooks(logs.records)).toEqual(ALL_HOOKS)
  })

  // seed 000: test_tool_calls_reuse_what_initialize_bound
  it("works out only the caller's home key per call; the bound key and the provider arity come from initialize", async () => {
    const { alpha: alphaHome } = makeHomes()
    const keys: string[] = []
    // The arity is read from the handler's `length` (bind reads it once): count those reads on the real path.
    const provider = new InstanceScopedProvider()
    const handler = provider.handleToolCall
    const counted = function (this: InstanceScopedProvider, ...args: Parameters<typeof handler>) {
      return handler.apply(this, args)
    }
    let arityReads = 0
    Object.defineProperty(counted, 'length', { get: () => (arityReads++, handler.length) })
    provider.handleToolCall = counted
    const agent = await buildAgent(alphaHome, 'agent:alpha:dm', provider, {
      homeKey: (home) => (keys.push(home), homeKey(home))
    })
    expect(keys).toEqual([alphaHome]) // the owner's key, once, at initialize
    expect(arityReads).toBe(1) // once, when the provider was added
    keys.length = 0
    await withHomeOverride(alphaHome, async () => {
      for (let i = 0; i < 3; i++)
        expect(await agent.manager.handleToolCall(HOOK_TOOL, {})).toBe(JSON.stringify({ ok: true }))
    })
    expect(keys).toEqual([alphaHome, alphaHome, alphaHome])
    expect(arityReads).toBe(1)
  })

  // seed 000: test_refused_checkpoint_compression_fails_closed
  it('fails closed when a required pre-compress checkpoint is refused', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    const alpha = await buildManager(alphaHome)
    await expect(
      withHomeOverride(betaHome, () =>
        alpha.onPreCompress([{ role: 'user', content: 'x' }], { requireCheckpoint: true })
      )
    ).rejects.toThrow(/caduceus logs errors/)
    expect(InstanceScopedProvider.events).toEqual([])
  })

  // seed 000: test_refusals_are_written_to_gateway_log
  it('routes refusals, under the caller-scope logger at error level, into the host error log', async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    const dir = mkdtempSync(join(tmpdir(), 'cad-memlog-'))
    const host = createLogger({ logFile: join(dir, 'caduceus.log'), errorFile: join(dir, 'errors.log') })
    // The sink the host hands every agent's memory build, next to the test's own capture.
    const toHost = memoryLogSink(host)
    const alpha = await buildManager(alphaHome, undefined, {
      log: (r) => {
        logs.sink(r)
        toHost(r)
      }
    })
    await withHomeOverride(betaHome, () => alpha.onTurnStart(1, 'hi'))
    const refusal = logs.scope().find((r) => r.code === REFUSAL_CODE)
    expect(refusal).toMatchObject({ name: CALLER_SCOPE_LOGGER, level: 'error' })
    const errorsLog = readFileSync(join(dir, 'errors.log'), 'utf8')
    expect(errorsLog).toContain(CALLER_SCOPE_LOGGER)
    expect(errorsLog).toContain(REFUSAL_CODE)
  })

  // seed 000: test_background_hook_runs_under_the_owning_profile_explicitly
  it('runs a background hook under the owning profile explicitly when the turn proves its profile by secret scope alone', async () => {
    const { alpha: alphaHome } = makeHomes()
    await multiplexed(async () => {
      const alpha = await buildManager(alphaHome)
      await withSecretScope({ profileHome: alphaHome, secrets: {} }, async () => {
        alpha.syncAll('what did we decide', 'the plan', { sessionId: 's' })
        expect(await alpha.flushPending(5_000)).toBe(true)
      })
    })
    expect(InstanceScopedProvider.events).toEqual([['sync_turn', alphaHome, alphaHome]])
  })

  // seed 000: test_two_profiles_interleaving_tool_calls_and_hooks_stay_in_their_own_stores
  it("keeps two profiles' interleaved tool calls and hooks in their own stores", async () => {
    const { alpha: alphaHome, beta: betaHome } = makeHomes()
    await multiplexed(async () => {
      const homes = [alphaHome, betaHome]
      const agents = new Map(
        await Promise.all(
          homes.map(async (h) => [h, await buildAgent(h, `agent:${h}:dm`, new InstanceScopedProvider())] as const)
        )
      )
      let started = 0
      const turns = (home: string) =>
        withHomeOverride(home, async () => {
          expect(isMultiplexActive()).toBe(true) // the turn inherited the multiplexed mode
          const agent = agents.get(home)!
          started++
          while (started < 2) await tick()
          for (let i = 0; i < 10; i++) {
            expect(await (i % 2 ? sequential : concurrent)(agent, undefined, HOOK_TOOL)).toEqual({ ok: true })
            await tick()
          }
          for (const hook of Object.keys(HOOKS).sort()) {
            await HOOKS[hook]!(agent.manager)
            await tick()
          }
        })
      await Promise.all(homes.map(turns))
    })
    const events = InstanceScopedProvider.events
    for (const home of [alphaHome, betaHome]) {
      const mine = events.filter((e) => e[1] === home)
      const kinds = new Set(mine.map((e) => e[0]))
      for (const want of ['tool', ...Object.keys(HOOKS).filter((h) => h !== 'session_boundary')])
        expect(kinds).toContain(want)
      expect(mine.every(([, , ambient]) => ambient === home)).toBe(true)
    }
    expect(events.length).toBe(events.filter((e) => e[1] === alphaHome || e[1] === betaHome).length)
    expect(logs.scope()).toEqual([])
  })
})
