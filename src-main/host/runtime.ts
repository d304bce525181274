/**
 * The agent half of the service graph: per-profile memory activity logs, delegation deps, the gateway with
 * its agent factory, and (with --demo) the scripted demo provider the demo profiles point at.
 */
import { createAgent, resolveCompression, startDemoProvider, ToolRegistry, type Agent } from '../agent'
import { EnvFileVault, secretsFor, loadConfig, providerLimitSettings, resolveRuntime, setDefaultVault, writeSettings, isDemoConfig, type ResolvedRuntime, type SecretVault } from '../config'
import {
  createDelegateDeps, createDelegateTool, childHandleFromAgent, markSubagent, restoreUndeliveredCompletions,
  type DelegateDeps, type DelegationCompletion
} from '../delegation'
import { Gateway, type BuildAgentInput } from '../gateway'
import { addMemoryLogSink, buildMemoryManagerForAgent, memoryToolDefinitions, MemoryActivityHub } from '../memory'
import type { SessionStore } from '../store'
import { createProcessTool, createTerminalTool, ProcessRegistry, saveProcessCompletion, terminalSettings } from '../tools'
import type { Services } from './services'
import { SafeStorageVault, type SecretCipher } from './safe-storage-vault'

export type { SecretCipher }

export interface Runtime {
  gateway: Gateway<Agent, SessionStore>
  memory: MemoryActivityHub
  delegation(profile: string): DelegateDeps
  vault: SecretVault
}

export async function wireRuntime(
  s: Services,
  opts: { live: boolean; demo: boolean; nativeBinding?: string; secretCipher?: SecretCipher }
): Promise<Runtime> {
  const { log, bus, stores } = s
  const vault: SecretVault = opts.secretCipher ? new SafeStorageVault(opts.secretCipher) : new EnvFileVault()
  setDefaultVault(vault)
  // Redaction by value: every profile's secrets are known before the first log line that could echo one.
  for (const e of stores.list()) {
    try {
      secretsFor(e.home, vault)
    } catch {
      // an unreadable .env is reported where it is used
    }
  }
  s.onClose(addMemoryLogSink((r) => log[r.level === 'debug' ? 'debug' : r.level](r.name, r.message)))

  if (opts.demo) await prepareDemo(s)
  // Demo provider everywhere: a profile whose provider is `demo` talks to the keyless scripted model in
  // every command (serve, api, run, cron run), started on first use and closed with the host.
  let demoUrl: string | null = null
  let demoStart: Promise<string> | null = null
  const demoBaseUrl = (): Promise<string> => (demoStart ??= startDemoProvider().then(({ server }) => {
    s.onClose(() => server.close())
    demoUrl = server.baseUrl
    return server.baseUrl
  }))

  const memory = new MemoryActivityHub()
  const attachMemory = (profile: string) => {
    try {
      const store = stores.get(profile)
      memory.register(profile, () => store.db)
    } catch (err) {
      log.error('memory', `activity log unavailable for ${profile}: ${(err as Error).message}`)
    }
  }
  for (const e of stores.list()) attachMemory(e.name)
  // Closers run in reverse: this one runs after the gateway has shut agents down (their last memory events
  // included), and before the stores close, so no batched activity write lands on a closed DB.
  s.onClose(() => {
    for (const e of stores.list()) memory.get(e.name)?.flush()
  })
  s.onClose(memory.onEvent((event) => bus.emit('memory.activity', event)))

  let gateway!: Gateway<Agent, SessionStore>
  const deps = new Map<string, DelegateDeps>()
  const delegation = (profile: string): DelegateDeps => {
    let d = deps.get(profile)
    if (d) return d
    const store = stores.get(profile)
    d = createDelegateDeps({
      profile,
      store,
      log: (level, message) => log[level]('delegation', message),
      onUpdate: (u) => bus.emit('delegation.updated', u),
      onCompletion: (c) => deliverToParent(c),
      buildChild: (spec) => {
        const home = s.homeOf(profile)
        const runtime = resolveRuntime(home, { vault })
        const tools = new ToolRegistry()
        const child = createAgent({
          profile, sessionId: spec.sessionId, store, tools, maxIterations: spec.maxIterations, history: spec.history,
          gatewaySessionKey: '', source: 'delegate',
          runtime: {
            ...agentRuntime(runtime, spec.model, providerLimitSettings(loadConfig(home).raw)),
            ...(runtime.provider === 'demo' && demoUrl ? { baseUrl: demoUrl } : {})
          }
        })
        markSubagent(child, spec.depth, spec.subagentId)
        return childHandleFromAgent(child, spec.model || runtime.model)
      }
    })
    deps.set(profile, d)
    return d
  }

  // A saved completion notice (background delegation, finished process) becomes the session's next turn.
  const runDeliveredTurn = async (area: string, what: string, profile: string, sessionId: string, text: string, savedMessageId: number) => {
    if (!opts.live) return
    try {
      await gateway.deliver({ profile, sessionId, text, savedMessageId })
    } catch (err) {
      log.warn(area, `could not run the follow-up turn for ${what}: ${(err as Error).message}`)
    }
  }
  const deliverToParent = async (c: DelegationCompletion) => {
    if (!c.deliveredSessionId || c.messageId === null) return
    await runDeliveredTurn('delegation', c.delegationId, c.profile, c.deliveredSessionId, c.notice, c.messageId)
  }

  // Background shell processes of the terminal tool, host-wide; all killed when the host closes.
  const processes = new ProcessRegistry({
    log: (level, message) => log[level]('terminal', message),
    onComplete: async (c) => {
      const saved = await saveProcessCompletion(stores.get(c.profile), c)
      await runDeliveredTurn('terminal', c.processId, c.profile, saved.sessionId, saved.text, saved.messageId)
    }
  })
  s.onClose(() => processes.killAll())

  const buildAgent = async (input: BuildAgentInput<SessionStore>): Promise<Agent> => {
    const tools = new ToolRegistry()
    const platform = input.channel?.capability.platform ?? 'desktop'
    const mem = await buildMemoryManagerForAgent(input.config as never, input.home, () => null, {
      sessionId: input.sessionId, platform, activity: memory.get(input.profile), init: { agentIdentity: input.profile }
    })
    for (const w of mem.warnings) log.warn('memory', w.text)
    if (mem.manager) for (const tool of memoryToolDefinitions(mem.manager)) tools.register(tool as never)
    tools.register(createDelegateTool(delegation(input.profile)))
    // Opt-in only (`terminal.enabled: true`): it runs model-chosen shell commands on the user's machine.
    const terminal = terminalSettings(input.config)
    if (terminal.enabled) {
      tools.register(createTerminalTool({ registry: processes, cwd: terminal.cwd ?? input.home }))
      tools.register(createProcessTool({ registry: processes }))
    }
    // Only what the profile states: compression stays off unless config.yaml turns it on.
    const compression = input.config.compression as Record<string, unknown> | undefined
    const runtime = agentRuntime(input.runtime, null, providerLimitSettings(input.config))
    if (input.runtime.provider === 'demo') runtime.baseUrl = await demoBaseUrl()
    const agent = createAgent({
      profile: input.profile,
      sessionId: input.sessionId,
      store: input.store,
      runtime,
      tools,
      maxIterations: input.maxIterations,
      memory: mem.manager ?? undefined,
      reasoningConfig: input.reasoningConfig ?? undefined,
      gatewaySessionKey: input.sessionKey,
      source: input.channel?.source ?? 'desktop',
      platform,
      ...(input.history?.length ? { history: input.history as never } : {}),
      compression: resolveCompression({
        enabled: compression?.enabled === true,
        threshold: typeof compression?.threshold === 'number' ? compression.threshold : undefined,
        targetRatio: typeof compression?.target_ratio === 'number' ? compression.target_ratio : undefined,
        protectLastN: typeof compression?.protect_last_n === 'number' ? compression.protect_last_n : undefined
      }),
      log
    })
    agent.startupNotices.push(...mem.warnings.map((w) => w.text))
    return agent
  }

  gateway = new Gateway<Agent, SessionStore>({
    root: s.root,
    stores,
    buildAgent,
    emit: (event, payload) => bus.emit(event, payload),
    vault,
    // Toggling terminal.enabled changes the signature, so cached agents rebuild with (or without) the tool.
    enabledToolsets: (_profile, config) => ['memory', 'delegation', ...(terminalSettings(config).enabled ? ['terminal'] : [])],
    log
  })
  s.onClose(() => gateway.shutdown())

  if (opts.live) {
    for (const e of stores.list()) {
      const failed = (err: unknown) => log.warn('delegation', `restore for ${e.name} failed: ${(err as Error).message}`)
      try {
        restoreUndeliveredCompletions(delegation(e.name)).catch(failed)
      } catch (err) {
        failed(err)
      }
    }
  }
  return { gateway, memory, delegation, vault }
}

/** The slice of a resolved profile runtime an Agent talks to; a child may run on its own model. */
function agentRuntime(rt: ResolvedRuntime, model?: string | null, limits?: ReturnType<typeof providerLimitSettings>) {
  return { model: model || rt.model, provider: rt.provider, baseUrl: rt.baseUrl, apiKey: rt.apiKey, apiMode: rt.apiMode, limits }
}

/** --demo: point the demo profiles at the scripted demo model (the home itself is written by createHost). */
async function prepareDemo(s: Services): Promise<void> {
  const { server } = await startDemoProvider()
  s.onClose(() => server.close())
  for (const e of s.stores.list()) {
    const raw = loadConfig(e.home).raw
    const provider = (raw.model as { provider?: unknown } | undefined)?.provider
    if (isDemoConfig(raw) || provider === 'demo') writeSettings(e.home, { baseUrl: server.baseUrl })
  }
  s.log.info('host', `demo model serving at ${server.baseUrl}`)
}
