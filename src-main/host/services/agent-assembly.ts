/**
 * Builds an Agent with its tools for a profile — the same path for a top-level agent and for a delegated
 * child. Tools come in toolsets (`memory`, `delegation`, `terminal`); a child gets the parent's toolsets
 * (or the requested subset of them) minus what its role may not use (spec §2: leaf-denied tools; an
 * orchestrator keeps `delegate_task`). Like upstream (`skip_memory`), only a primary agent has memory: a
 * child or a cron run gets no provider at all (no memory tools, no recall, no sync), so neither a child's
 * transcript nor a cron prompt ever lands in the user's memory; `on_delegation` reaches the parent's.
 */
import { createAgent, ToolRegistry, type Agent, type ToolDefinition } from '../../agent'
import { agentSettings, loadConfig, type RawConfig, type ResolvedRuntime } from '../../config'
import { providerLimitSettings, providerReadTimeout } from './provider-limits'
import { createDelegateTool, LEAF_DENIED_TOOLS, type DelegateDeps } from '../../delegation'
import { buildMemoryManagerForAgent, memoryToolDefinitions, type MemoryActivityHub } from '../../memory'
import type { SessionStore } from '../../store'
import { createProcessTool, createTerminalTool, terminalSettings, type ProcessRegistry } from '../../tools'
import type { Logger } from '@shared/contract/log'
import type { SecretMask } from '../../secrets'
import type { MemoryProviderHost } from '../memory-providers'

/** Memory's records into the host's log (memory/ cannot import the host): one sink per graph, passed where memory is built. */
export function memoryLogSink(log: Logger): NonNullable<Parameters<typeof buildMemoryManagerForAgent>[3]['log']> {
  return (r) => log[r.level === 'debug' ? 'debug' : r.level](r.name, r.message)
}

export interface AssemblyDeps {
  hub: MemoryActivityHub
  providers: MemoryProviderHost
  processes: ProcessRegistry
  delegation(profile: string): DelegateDeps
  log: Logger
  /** The graph's secret mask: memory masks with it what it sends a provider or records. */
  mask: SecretMask
}

export interface AssemblyInput {
  profile: string
  home: string
  sessionId: string
  sessionKey: string
  store: SessionStore
  config: RawConfig
  runtime: ResolvedRuntime
  secrets: Readonly<Record<string, string>>
  maxIterations: number
  /** Toolsets this agent gets (already narrowed for a child). */
  toolsets: string[]
  role: 'primary' | 'leaf' | 'orchestrator'
  model?: string | null
  history?: Parameters<typeof createAgent>[0]['history']
  /** Persona (SOUL.md) and a stateless caller's own system text; children get neither. */
  systemPrompt?: string
  ephemeralSystemPrompt?: string
  reasoningConfig?: Parameters<typeof createAgent>[0]['reasoningConfig']
  source: string
  /** Memory platform of the channel the turn arrived on (desk chat: 'desktop'). */
  platform?: string
  /** Build without memory even as a primary agent (a cron run, as upstream's `skip_memory`). */
  skipMemory?: boolean
  /** The keyless demo model's local address, for `provider: demo` profiles. */
  baseUrlOverride?: string
  /** Working directory for the terminal tool (a cron job's workdir) instead of the configured one. */
  cwd?: string
  /** A caller's long-term memory scope: the providers' `gatewaySessionKey` (upstream's `gateway_session_key`). */
  memoryKey?: string
}

/**
 * The tools each upstream toolset name takes away when `agent.disabled_toolsets` lists it, limited to the tools
 * Caduceus has (upstream's get_tool_definitions subtracts the same; `debugging` bundles terminal + process,
 * `terminal_tools` is the legacy name of the terminal alone). Only the built-in `memory` tool goes with
 * `memory`: upstream still offers an external provider's tools and recall then.
 */
const DISABLED_TOOLSET_TOOLS: Readonly<Record<string, readonly string[]>> = {
  memory: ['memory'],
  delegation: ['delegate_task'],
  terminal: ['terminal', 'process'],
  debugging: ['terminal', 'process'],
  terminal_tools: ['terminal']
}

/** Tool names `agent.disabled_toolsets` removes from every agent of the profile. */
function disabledTools(disabledToolsets: readonly string[]): Set<string> {
  const out = new Set<string>()
  for (const name of disabledToolsets)
    for (const tool of Object.hasOwn(DISABLED_TOOLSET_TOOLS, name) ? DISABLED_TOOLSET_TOOLS[name]! : []) out.add(tool)
  return out
}

/** Toolsets a profile's top-level agents get (part of the cache signature). */
export function profileToolsets(config: RawConfig): string[] {
  return ['memory', 'delegation', ...(terminalSettings(config).enabled ? ['terminal'] : [])]
}

/** A child's toolsets: the requested ones the parent has, else all of the parent's. */
export function childToolsets(parent: string[], requested: string[] | null | undefined): string[] {
  if (!requested || requested.length === 0) return [...parent]
  return parent.filter((t) => requested.includes(t))
}

/** Tools a child of this role never gets (a leaf: LEAF_DENIED_TOOLS; an orchestrator may still delegate). */
function deniedFor(role: AssemblyInput['role']): Set<string> {
  if (role === 'primary') return new Set()
  return new Set(LEAF_DENIED_TOOLS.filter((t) => !(role === 'orchestrator' && t === 'delegate_task')))
}

export async function assembleAgent(deps: AssemblyDeps, input: AssemblyInput): Promise<Agent> {
  const { profile, home, config } = input
  const platform = input.platform ?? 'desktop'
  const tools = new ToolRegistry()
  const settings = agentSettings(config)
  const denied = deniedFor(input.role)
  for (const tool of disabledTools(settings.disabledToolsets)) denied.add(tool)
  const add = (t: ToolDefinition) => {
    if (!denied.has(t.name)) tools.register(t)
  }
  let memory: Awaited<ReturnType<typeof buildMemoryManagerForAgent>> | null = null
  if (input.toolsets.includes('memory') && input.role === 'primary' && !input.skipMemory) {
    memory = await buildMemoryManagerForAgent(
      config as never,
      home,
      deps.providers.loader(profile, home, config, input.secrets),
      {
        sessionId: input.sessionId,
        platform,
        activity: deps.hub.get(profile),
        init: {
          agentIdentity: profile,
          agentContext: 'primary',
          ...(input.memoryKey ? { gatewaySessionKey: input.memoryKey } : {})
        },
        log: memoryLogSink(deps.log),
        mask: deps.mask
      }
    )
    if (memory.manager) for (const t of memoryToolDefinitions(memory.manager)) add(t as unknown as ToolDefinition)
  }
  if (input.toolsets.includes('delegation')) add(createDelegateTool(deps.delegation(profile)))
  if (input.toolsets.includes('terminal')) {
    const terminal = terminalSettings(config)
    // A conversation's segments (compression chain): its processes keep the id of the segment they started in.
    const conversationOf = (sid: string) => input.store.compressionChainIds(sid)
    add(createTerminalTool({ registry: deps.processes, cwd: input.cwd ?? terminal.cwd ?? home, conversationOf }))
    add(createProcessTool({ registry: deps.processes, conversationOf }))
  }
  const runtime = {
    ...agentRuntime(input.runtime, input.model, providerLimitSettings(config)),
    ...(input.baseUrlOverride ? { baseUrl: input.baseUrlOverride } : {})
  }
  // Upstream's provider timeouts (config.yaml providers.*, HERMES_API_TIMEOUT / HERMES_STREAM_READ_TIMEOUT): the
  // config's beat provider_limits.inactivity_timeout, the environment's only stand where neither is set.
  const timeout = providerReadTimeout(config, runtime, { ...process.env, ...input.secrets })
  runtime.limits = {
    ...runtime.limits,
    inactivityMs: timeout.configured ?? runtime.limits?.inactivityMs ?? timeout.fromEnv
  }
  const agent = createAgent({
    profile,
    sessionId: input.sessionId,
    store: input.store,
    runtime,
    tools,
    maxIterations: input.maxIterations,
    memory: memory?.manager ?? undefined,
    reasoningConfig: input.reasoningConfig ?? undefined,
    history: input.history,
    systemPrompt: input.systemPrompt || null,
    ephemeralSystemPrompt: input.ephemeralSystemPrompt || null,
    gatewaySessionKey: input.sessionKey,
    source: input.source,
    platform,
    memoryNudgeInterval: memory?.nudgeInterval ?? 0,
    // read at each turn's end, as upstream reads it; a cron run's scheduler drops an explanation alone (turn-explainer.ts)
    turnExplainer: () =>
      agentSettings(loadConfig(home).raw, { ...process.env, ...input.secrets }).turnExplainer
        ? input.source === 'cron'
          ? 'cron'
          : 'on'
        : 'off',
    // config.yaml's compression as upstream applies it to this window (config/compression.ts; the Settings page shows
    // it), which the Agent resolves once (agent/compression.ts resolveCompression)
    compression: input.runtime.compression,
    log: deps.log
  })
  agent.startupNotices.push(...timeout.warnings)
  if (memory) agent.startupNotices.push(...deps.providers.settle(profile, memory).map((w) => w.text))
  return agent
}

/** The slice of a resolved profile runtime an Agent talks to; a child may run on its own model. */
function agentRuntime(rt: ResolvedRuntime, model?: string | null, limits?: ReturnType<typeof providerLimitSettings>) {
  return {
    model: model || rt.model,
    provider: rt.provider,
    baseUrl: rt.baseUrl,
    apiKey: rt.apiKey,
    apiMode: rt.apiMode,
    capabilities: { ...rt.capabilities },
    limits
  }
}
