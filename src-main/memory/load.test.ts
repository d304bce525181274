// Load: 2 profiles × 50 interleaved async turns on a multiplexed host, each turn making memory tool calls
// (built-in store + a process-wide provider) and driving hooks. Nothing may land in the wrong profile.
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { executeToolCall, ToolRegistry } from '../agent/tools/registry'
import { runInProfileScope } from '../scope'
import { multiplexed } from '../scope/test-support'
import { MemoryActivityLog } from './activity'
import { BuiltinMemoryProvider } from './builtin'
import { readEntries } from './builtin-store'
import { MemoryManager } from './manager'
import { memoryToolDefinitions } from './tools'
import { captureLogs, makeHomes, tick } from './test-fixtures/harness'
import { ProcessWideProvider, TOOL } from './test-fixtures/seed-providers'
import { SessionStore } from '../store'

const TURNS = 50
let logs: ReturnType<typeof captureLogs>
beforeEach(() => {
  ProcessWideProvider.reset()
  logs = captureLogs()
})
afterEach(() => logs.stop())

describe('memory under load', () => {
  it('2 profiles × 50 interleaved turns with tool calls and hooks: 0 entries in the wrong store', async () => {
    const { alpha, beta } = makeHomes()
    const profiles = [
      { label: 'alpha', home: alpha },
      { label: 'beta', home: beta }
    ]
    await multiplexed(async () => {
      const agents = await Promise.all(
        profiles.map(async ({ label, home }) => {
          const store = new SessionStore(join(home, 'state.db'), { profile: label })
          const activity = new MemoryActivityLog(store.memoryEventsRepo(), label)
          const manager = new MemoryManager({ activity, log: logs.sink })
          manager.addProvider(new BuiltinMemoryProvider({ limits: { memory: 100_000, user: 100_000 } }))
          manager.addProvider(new ProcessWideProvider())
          await runInProfileScope(home, {}, () =>
            manager.initializeAll(`${label}-s0`, { hermesHome: home, platform: 'desk' })
          )
          const registry = new ToolRegistry()
          for (const def of memoryToolDefinitions(manager)) registry.register(def)
          return { label, home, store, activity, manager, registry }
        })
      )

      const turn = (agent: (typeof agents)[number], i: number) =>
        runInProfileScope(agent.home, { TOKEN: agent.label }, async () => {
          const { manager, registry, label } = agent
          const ctx = {
            profile: label,
            sessionId: `${label}-s0`,
            turnId: `${label}-t${i}`,
            gatewaySessionKey: `agent:${label}:desk:${i}`
          }
          await manager.onTurnStart(i, `question ${i}`)
          await tick()
          await manager.prefetchAll(`what about ${i}?`, { sessionId: ctx.sessionId })
          await tick()
          const calls = [
            {
              id: `${i}-m`,
              name: 'memory',
              arguments: JSON.stringify({
                action: 'add',
                target: i % 3 ? 'memory' : 'user',
                content: `${label}-turn-${i}`
              })
            },
            { id: `${i}-p`, name: TOOL, arguments: JSON.stringify({ content: `${label}-${i}` }) }
          ]
          // Alternate the agent's two dispatch paths (agent/tool-runner.ts): in order, or all at once.
          const results =
            i % 2
              ? [await executeToolCall(registry, calls[0]!, ctx), await executeToolCall(registry, calls[1]!, ctx)]
              : await Promise.all(calls.map((c) => executeToolCall(registry, c, ctx)))
          for (const r of results) expect(JSON.parse(r.content).error).toBeUndefined()
          await tick()
          manager.syncAll(`question ${i}`, `answer ${i}`, { sessionId: ctx.sessionId })
          if (i % 10 === 9) manager.commitSessionBoundaryAsync([], { newSessionId: `${label}-s${i}` })
          await manager.onPreCompress([{ role: 'user', content: 'x' }])
        })

      // Stray calls: a turn of one profile reaching the other profile's manager is refused, not written.
      const stray = () =>
        runInProfileScope(beta, {}, () =>
          agents[0]!.manager.handleToolCall('memory', { action: 'add', target: 'memory', content: 'STRAY' })
        )

      await Promise.all([
        ...Array.from({ length: TURNS }, (_, i) => agents.flatMap((a) => [turn(a, i)])).flat(),
        stray(),
        stray()
      ])
      for (const a of agents)
        expect(await runInProfileScope(a.home, {}, () => a.manager.flushPending(10_000))).toBe(true)

      for (const { label, home, activity, store } of agents) {
        const other = label === 'alpha' ? 'beta' : 'alpha'
        const stored = [...readEntries(home, 'memory'), ...readEntries(home, 'user')]
        expect(stored.sort()).toEqual(Array.from({ length: TURNS }, (_, i) => `${label}-turn-${i}`).sort())
        expect(stored.some((e) => e.includes(other) || e === 'STRAY')).toBe(false)
        expect([...(ProcessWideProvider.stores.get(home) ?? [])].sort()).toEqual(
          Array.from({ length: TURNS }, (_, i) => `${label}-${i}`).sort()
        )
        const events = activity.listEvents({ limit: 1000 })
        expect(events.filter((e) => e.kind === 'tool_call')).toHaveLength(TURNS * 2)
        expect(events.every((e) => e.sessionId === null || e.sessionId.startsWith(`${label}-`))).toBe(true)
        expect(events.some((e) => e.kind === 'error')).toBe(false)
        expect(events.filter((e) => e.kind === 'refusal')).toHaveLength(label === 'alpha' ? 2 : 0)
        store.close()
      }
      expect([...ProcessWideProvider.stores.keys()].sort()).toEqual([alpha, beta].sort())
      expect(new Set(ProcessWideProvider.calls.map((c) => c.callerGsk?.split(':')[1]))).toEqual(
        new Set(['alpha', 'beta'])
      )
    })
  })
})
