/**
 * The agent half of the service graph: per-profile memory activity logs, delegation deps, the gateway with
 * its agent factory, and (with --demo) the scripted demo provider the demo profiles point at.
 */
import { namedLog } from '@shared/contract/log'
import { startDemoProvider, type Agent } from '../../agent'
import { isDemoConfig, loadConfig, readSoul, resolveRuntime, writeSettings } from '../../config'
import { EnvFileVault, secretsFor, type SecretMask, type SecretVault } from '../../secrets'
import {
  createDelegateDeps,
  childHandleFromAgent,
  markSubagent,
  restoreUndeliveredCompletions,
  stopBackgroundDelegations,
  type DelegateDeps
} from '../../delegation'
import { Gateway, type BuildAgentInput } from '../../gateway'
import { MemoryActivityHub } from '../../memory'
import { readRetrying, type SessionStore } from '../../store'
import { ProcessRegistry } from '../../tools'
import { ProcessNotices } from './process-notices'
import { assembleAgent, childToolsets, memoryLogSink, profileToolsets, type AssemblyDeps } from './agent-assembly'
import { MemoryProviderHost } from '../memory-providers'
import type { Services } from './services'
import { FollowUpPort } from './follow-ups'
import { SafeStorageVault, type SecretCipher } from './safe-storage-vault'
import { errorMessage } from '@shared/contract/errors'

export type { SecretCipher }

/** How long closing the host waits for interrupted background delegations to record how they ended. */
const BACKGROUND_STOP_MS = 5000

export interface Runtime {
  gateway: Gateway<Agent, SessionStore>
  memory: MemoryActivityHub
  providers: MemoryProviderHost
  delegation(profile: string): DelegateDeps
  vault: SecretVault
}

export async function wireRuntime(
  s: Services,
  opts: { live: boolean; demo: boolean; nativeBinding?: string; secretCipher?: SecretCipher; mask: SecretMask }
): Promise<Runtime> {
  const { log, bus, stores } = s
  // One vault per graph, handed to every reader (gateway, cron, API server, handlers): no process-wide default. It
  // fills the graph's own mask (the one its logger, bus and dispatcher mask with).
  const vault: SecretVault = opts.secretCipher
    ? new SafeStorageVault(opts.secretCipher, opts.mask)
    : new EnvFileVault(opts.mask)
  // Redaction by value: every profile's secrets are known before the first log line that could echo one.
  for (const e of stores.list()) {
    try {
      secretsFor(e.home, vault)
    } catch {
      // an unreadable .env is reported where it is used
    }
  }

  if (opts.demo) await prepareDemo(s, vault)
  // Demo provider everywhere: a profile whose provider is `demo` talks to the keyless scripted model in
  // every command (serve, api, run, cron run), started on first use and closed with the host.
  let demoUrl: string | null = null
  let demoStart: Promise<string> | null = null
  const demoBaseUrl = (): Promise<string> =>
    (demoStart ??= startDemoProvider().then(({ server }) => {
      s.onClose(() => server.close())
      demoUrl = server.baseUrl
      return server.baseUrl
    }))

  const memory = new MemoryActivityHub({ log: memoryLogSink(log), mask: opts.mask })
  const attachMemory = (profile: string) => {
    try {
      memory.register(profile, stores.get(profile))
    } catch (err) {
      log.error('memory', `activity log unavailable for ${profile}: ${errorMessage(err)}`)
    }
  }
  for (const e of stores.list()) attachMemory(e.name)
  // Closers run in reverse: this one runs after the gateway has shut agents down (their last memory events
  // included), and before the stores close, so no batched activity write lands on a closed DB.
  s.onClose(() => {
    for (const e of stores.list()) memory.get(e.name)?.flush()
  })
  s.onClose(memory.onEvent((event) => bus.emit('memory.activity', event)))

  // Delegation and background processes queue follow-up notices the gateway runs: the queue is made before all of
  // them and handed to each (the gateway takes its deliveries as it is constructed), so nothing is connected later.
  const followUps = new FollowUpPort({
    live: opts.live,
    log,
    // A lock is no reason to save into a segment compression closed: the read waits out a foreign commit.
    tipOf: (profile, id) => readRetrying(() => stores.get(profile).resolveResumeSessionId(id))
  })
  const deps = new Map<string, DelegateDeps>()
  const delegation = (profile: string): DelegateDeps => {
    let d = deps.get(profile)
    if (d) return d
    const store = stores.get(profile)
    // One live-subagent registry and one background pool per host graph: the first profile's deps make them and
    // every other profile shares them (the async cap counts every profile's background units).
    const first = deps.values().next().value
    d = createDelegateDeps({
      profile,
      store,
      ...(first ? { live: first.live, pool: first.pool } : {}),
      log: namedLog(log, 'delegation'),
      // the owner profile a delegation row records is named under this host's root, not the process's default one
      registry: { root: s.root },
      onUpdate: (u) => bus.emit('delegation.updated', u),
      // A finished background delegation's notice is saved after the parent's turn and runs as its next turn.
      saveAndRun: (what, sessionId, save) => followUps.saveAndRun('delegation', what, profile, sessionId, save),
      buildChild: async (spec) => {
        const home = s.homeOf(profile)
        const secrets = secretsFor(home, vault)
        const runtime = resolveRuntime(home, { vault, secrets: { ...secrets } })
        const config = loadConfig(home).raw
        const child = await assembleAgent(assembly, {
          profile,
          home,
          sessionId: spec.sessionId,
          sessionKey: '',
          store,
          config,
          runtime,
          secrets,
          maxIterations: spec.maxIterations,
          toolsets: childToolsets(profileToolsets(config), spec.toolsets),
          role: spec.role,
          model: spec.model,
          history: spec.history,
          source: 'subagent', // upstream's child platform; its row is created before (children.ts)
          ...(runtime.provider === 'demo' && demoUrl ? { baseUrlOverride: demoUrl } : {})
        })
        markSubagent(child, spec.depth, spec.subagentId)
        // Its row ends with the run, as upstream's child.close() ends it ('agent_close'; a row already ended keeps its
        // reason): left open, upstream's readers and the Subagents page's session fallback took it as still running.
        return closeAfterRun(childHandleFromAgent(child, spec.model || runtime.model), child, () =>
          store.endSession(child.sessionId, 'agent_close')
        )
      }
    })
    deps.set(profile, d)
    return d
  }

  // Background shell processes of the terminal tool, host-wide; all killed when the host closes. A finished one's
  // notice is recorded on disk at once and saved into the session after the turn that started it, as a delegation's.
  const notices = new ProcessNotices({ stores, followUps, log })
  const processes = new ProcessRegistry({
    log: namedLog(log, 'terminal'),
    mask: opts.mask,
    onComplete: (c) => notices.completed(c)
  })
  // Runs after the gateway's shutdown (closers run in reverse): what is still pending then goes to the next host.
  s.onClose(() => notices.close())
  s.onClose(() => processes.killAll())

  const providers = new MemoryProviderHost({ root: s.root, nativeBinding: opts.nativeBinding, log, hub: memory })
  const assembly: AssemblyDeps = { hub: memory, providers, processes, delegation, log, mask: opts.mask }

  const buildAgent = async (input: BuildAgentInput<SessionStore>): Promise<Agent> =>
    assembleAgent(assembly, {
      profile: input.profile,
      home: input.home,
      sessionId: input.sessionId,
      sessionKey: input.sessionKey,
      store: input.store,
      config: input.config,
      runtime: input.runtime,
      secrets: secretsFor(input.home, vault),
      maxIterations: input.maxIterations,
      reasoningConfig: input.reasoningConfig ?? undefined,
      // A cron job's enabled_toolsets narrow the profile's toolsets; they never add one the profile lacks.
      toolsets: profileToolsets(input.config).filter((t) => !input.toolsets || input.toolsets.includes(t)),
      ...(input.cwd ? { cwd: input.cwd } : {}),
      ...(input.memoryKey ? { memoryKey: input.memoryKey } : {}),
      role: 'primary',
      // The channel the turn arrived on decides the stored source and the memory platform; desk chat otherwise.
      source: input.channel?.source ?? 'desktop',
      platform: input.channel?.capability.platform ?? 'desktop',
      // A cron run is built like upstream's (`skip_memory`): its prompt is no user turn to remember.
      skipMemory: input.channel?.source === 'cron',
      ...(input.history?.length ? { history: input.history as never } : {}),
      // Persona from the profile's SOUL.md, read when the agent is built (a session's prompt stays stable).
      systemPrompt: readSoul(input.home, { contextLength: input.runtime.contextWindow, config: input.config }),
      ...(input.ephemeralPrompt ? { ephemeralSystemPrompt: input.ephemeralPrompt } : {}),
      ...(input.runtime.provider === 'demo' ? { baseUrlOverride: await demoBaseUrl() } : {})
    })

  const gateway = new Gateway<Agent, SessionStore>({
    root: s.root,
    stores,
    buildAgent,
    emit: (event, payload) => bus.emit(event, payload),
    vault,
    // Toggling terminal.enabled changes the signature, so cached agents rebuild with (or without) the tool.
    enabledToolsets: (_profile, config) => profileToolsets(config),
    // seed 001: a memory plugin's files and the configured provider's identity are part of the signature.
    registryGeneration: (profile) => providers.registryGeneration(profile, s.homeOf(profile)),
    memoryIdentity: providers,
    // Every child of the session still running, inline or in the background: upstream's running agent counts both
    // (`_active_children`). The registry is shared by every profile's deps: any one reads it (none yet: none run).
    activeSubagents: (profile, sessionId) =>
      (deps.values().next().value?.live.list() ?? []).filter(
        (c) => c.parentSessionId === sessionId && c.profile === profile
      ).length,
    followUps,
    log
  })
  // Closers run in reverse: this one runs once the gateway has stopped every turn (so no unit starts after it) and
  // before the activity logs flush and the stores close. A background child left running wrote into its store after
  // the host closed it, and re-created a state.db deleted since.
  // Start-up restores (below) still under way: awaited too, their writes must land before the stores close.
  const restoring = new Set<Promise<unknown>>()
  s.onClose(async () => {
    await Promise.allSettled([...restoring])
    const first = deps.values().next().value
    const left = first ? await stopBackgroundDelegations(first, BACKGROUND_STOP_MS) : 0
    if (left) log.warn('delegation', `${left} background delegation(s) did not stop within ${BACKGROUND_STOP_MS} ms`)
  })
  s.onClose(() => gateway.shutdown())

  if (opts.live) {
    for (const e of stores.list()) {
      const failed = (err: unknown) => log.warn('delegation', `restore for ${e.name} failed: ${errorMessage(err)}`)
      try {
        restoring.add(restoreUndeliveredCompletions(delegation(e.name)).catch(failed))
      } catch (err) {
        failed(err)
      }
      restoring.add(
        notices
          .restore(e.name)
          .catch((err: unknown) => log.warn('terminal', `restoring notices of ${e.name} failed: ${errorMessage(err)}`))
      )
    }
  }
  return { gateway, memory, providers, delegation, vault }
}

/** A child agent is used for one run: close it after (its memory providers and tool state with it), or unrun. */
function closeAfterRun<H extends { run(goal: string, o: { signal?: AbortSignal }): Promise<unknown> }>(
  handle: H,
  agent: Agent,
  ended: () => Promise<unknown>
): H {
  const run = handle.run.bind(handle)
  handle.run = (async (goal: string, o: { signal?: AbortSignal }) => {
    try {
      return await run(goal, o)
    } finally {
      await agent.close().catch(() => undefined)
      await ended().catch(() => undefined)
    }
  }) as H['run']
  // A child whose dispatch failed never runs: it is closed all the same.
  return Object.assign(handle, { close: () => agent.close() })
}

/** --demo: point the demo profiles at the scripted demo model (the home itself is written by createHost). */
async function prepareDemo(s: Services, vault: SecretVault): Promise<void> {
  const { server } = await startDemoProvider()
  s.onClose(() => server.close())
  for (const e of s.stores.list()) {
    const raw = loadConfig(e.home).raw
    const provider = (raw.model as { provider?: unknown } | undefined)?.provider
    if (isDemoConfig(raw) || provider === 'demo')
      writeSettings(e.home, { baseUrl: server.baseUrl }, { profile: e.name, vault })
  }
  s.log.info('host', `demo model serving at ${server.baseUrl}`)
}
