/** Seed-000 harness: temp homes, managers built the way an agent builds them, real dispatch, captured logs. */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, beforeEach, expect } from 'vitest'
import { executeToolCall, ToolRegistry, type ToolContext } from '../../agent/tools/registry'
import { withHomeOverride } from '../../scope'
import { REFUSAL_CODE } from '../caller-scope'
import { CALLER_SCOPE_LOGGER, type MemoryLogSink } from '../log'
import { MemoryManager } from '../manager'
import type { MemoryProvider } from '../provider'
import { memoryToolDefinitions } from '../tools'
import { InstanceScopedProvider, ProcessWideProvider, TOOL } from './seed-providers'

type MemoryLogRecord = Parameters<MemoryLogSink>[0]
type MemoryManagerOptions = NonNullable<ConstructorParameters<typeof MemoryManager>[0]>

export function makeHomes(): { root: string; alpha: string; beta: string } {
  const root = join(mkdtempSync(join(tmpdir(), 'cad-mem-')), '.hermes')
  const alpha = join(root, 'profiles', 'alpha')
  const beta = join(root, 'profiles', 'beta')
  for (const home of [alpha, beta]) mkdirSync(home, { recursive: true })
  return { root, alpha, beta }
}

export interface TestAgent {
  manager: MemoryManager
  registry: ToolRegistry
  gsk: string
}

export async function buildAgent(
  home: string,
  gsk: string,
  provider: MemoryProvider = new ProcessWideProvider(),
  opts: { initialize?: boolean } & MemoryManagerOptions = {}
): Promise<TestAgent> {
  const manager = new MemoryManager({ ...opts, log: opts.log ?? capturing })
  await withHomeOverride(home, async () => {
    manager.addProvider(provider)
    if (opts.initialize !== false)
      await manager.initializeAll(`s-${basename(home)}`, { platform: 'api_server', hermesHome: home })
  })
  const registry = new ToolRegistry()
  for (const def of memoryToolDefinitions(manager)) registry.register(def)
  return { manager, registry, gsk }
}

export async function buildManager(
  home: string,
  provider: MemoryProvider = new InstanceScopedProvider(),
  opts: MemoryManagerOptions = {}
): Promise<MemoryManager> {
  return (await buildAgent(home, '', provider, opts)).manager
}

const ctx = (agent: TestAgent): ToolContext => ({
  profile: 'p',
  sessionId: 's',
  turnId: 't',
  gatewaySessionKey: agent.gsk
})
const call = (name: string, content?: string) => ({
  id: 'c',
  name,
  arguments: JSON.stringify(content === undefined ? {} : { content })
})

/** The agent's sequential path (agent/tool-runner.ts): each call awaited in turn. */
export async function sequential(agent: TestAgent, content?: string, tool = TOOL): Promise<Record<string, unknown>> {
  const result = await executeToolCall(agent.registry, call(tool, content), ctx(agent))
  return JSON.parse(result.content)
}

/** The agent's concurrent path (agent/tool-runner.ts): the batch started together under Promise.all. */
export async function concurrent(agent: TestAgent, content?: string, tool = TOOL): Promise<Record<string, unknown>> {
  const [result] = await Promise.all([executeToolCall(agent.registry, call(tool, content), ctx(agent))])
  return JSON.parse(result.content)
}

/** The capture `buildAgent` hands each manager it builds (memory logs go where their owner says, as in the host). */
let capturing: MemoryLogSink | undefined

/**
 * Captures the memory log records of every manager `buildAgent`/`buildManager` builds until `stop()`; a manager or
 * agent build a test makes itself gets `sink` as its `log`.
 */
export function captureLogs(): {
  records: MemoryLogRecord[]
  scope: () => MemoryLogRecord[]
  sink: MemoryLogSink
  stop: () => void
} {
  const records: MemoryLogRecord[] = []
  const sink: MemoryLogSink = (r) => void records.push(r)
  capturing = sink
  const stop = () => {
    if (capturing === sink) capturing = undefined
  }
  return { records, scope: () => records.filter((r) => r.name === CALLER_SCOPE_LOGGER), sink, stop }
}

/** The model sees a generic refusal naming `caduceus logs errors`; the log keeps the code and the homes. */
export function expectGenericRefusal(
  result: Record<string, unknown>,
  logs: MemoryLogRecord[],
  ...homes: string[]
): void {
  const error = String(result.error ?? '')
  expect(error).toContain('refused')
  expect(error).toContain('caduceus logs errors')
  expect(error).not.toContain(REFUSAL_CODE)
  for (const home of homes) expect(error).not.toContain(home)
  const logged = logs
    .filter((r) => r.name === CALLER_SCOPE_LOGGER)
    .map((r) => r.message)
    .join('\n')
  expect(logged).toContain(REFUSAL_CODE)
  for (const home of homes) expect(logged).toContain(home)
}

/** Lets other async turns run: real interleaving between steps. */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

export function refusedHooks(logs: MemoryLogRecord[]): Set<string> {
  return new Set(
    logs
      .filter((r) => r.name === CALLER_SCOPE_LOGGER && r.code === REFUSAL_CODE && r.message.includes(REFUSAL_CODE))
      .map((r) => (r.subject ?? '').replace(/^hook /, ''))
  )
}

/** Hook name → drives it through the manager the way the agent does (background ones drained). */
export const HOOKS: Record<string, (m: MemoryManager) => Promise<unknown>> = {
  sync_turn: async (m) => {
    m.syncAll('what did we decide', 'the plan', { sessionId: 's' })
    expect(await m.flushPending(5_000)).toBe(true)
  },
  queue_prefetch: async (m) => {
    m.queuePrefetchAll('what did we decide', { sessionId: 's' })
    expect(await m.flushPending(5_000)).toBe(true)
  },
  prefetch: (m) => m.prefetchAll('what did we decide', { sessionId: 's' }),
  on_turn_start: (m) => m.onTurnStart(1, 'what did we decide'),
  on_session_end: (m) => m.onSessionEnd([]),
  on_session_switch: (m) => m.onSessionSwitch('s2'),
  session_boundary: async (m) => {
    m.commitSessionBoundaryAsync([], { newSessionId: 's3' })
    expect(await m.flushPending(5_000)).toBe(true)
  },
  on_pre_compress: (m) => m.onPreCompress([{ role: 'user', content: 'x' }]),
  on_memory_write: (m) => m.onMemoryWrite('add', 'memory', 'a fact'),
  on_delegation: (m) => m.onDelegation('task', 'result')
}

/**
 * Each caller-scope test starts with fresh provider state (`reset`) and captured memory logs, and leaves
 * HERMES_HOME as it found it. The returned logs always read the current test's capture.
 */
export function setupCallerScopeTest(reset: () => void): {
  readonly records: MemoryLogRecord[]
  readonly sink: MemoryLogSink
  scope: () => MemoryLogRecord[]
} {
  let current: ReturnType<typeof captureLogs>
  const savedHome = process.env.HERMES_HOME
  beforeEach(() => {
    reset()
    current = captureLogs()
  })
  afterEach(() => {
    current.stop()
    if (savedHome === undefined) delete process.env.HERMES_HOME
    else process.env.HERMES_HOME = savedHome
  })
  return {
    get records() {
      return current.records
    },
    get sink() {
      return current.sink
    },
    scope: () => current.scope()
  }
}
