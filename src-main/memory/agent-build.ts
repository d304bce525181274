/**
 * The agent-build path for memory: built-in provider (unless both memory flags are off) plus the configured external one.
 * Whatever can't be used is dropped and turned into ONE startup notice for the user (never a home path:
 * notices reach chat surfaces); details go to the log. Only a provider that really joined logs "activated".
 */
import { BuiltinMemoryProvider, type BuiltinMemoryOptions } from './builtin'
import { memoryLimitsOf, nudgeIntervalOf } from './builtin-limits'
import type { MemoryActivitySink } from './activity-types'
import { MANAGER_LOGGER, memoryLogger, type MemoryLogSink } from './log'
import type { MemoryRedactor } from './redact'
import { errorText, hookTimeoutMs, withTimeout } from './manager-support'
import { MemoryManager } from './manager'
import { BUILTIN_PROVIDER_NAME, type InitializeOptions, type MemoryProvider } from './provider'

/** The `memory:` section of a profile's config.yaml (upstream keys). */
export interface MemoryConfig {
  /** A name, as written; config.yaml may hold anything here. */
  provider?: unknown
  memory_enabled?: unknown
  user_profile_enabled?: unknown
  /** Char limits of MEMORY.md / USER.md; upstream reads them with `int()` (memoryLimitsOf). */
  memory_char_limit?: unknown
  user_char_limit?: unknown
  /** User turns between memory reviews; upstream reads it with `int()` (nudgeIntervalOf). */
  nudge_interval?: unknown
}

export interface StartupNotice {
  level: 'warn' | 'info'
  text: string
}

export interface BuildAgentMemoryOptions {
  sessionId: string
  platform: string
  activity?: MemoryActivitySink
  builtin?: BuiltinMemoryOptions
  /** Extra initialize kwargs (agentContext, agentIdentity, userId, …). */
  init?: Partial<InitializeOptions>
  /** Where the build's and the manager's records go (the host's log); without one, stderr. */
  log?: MemoryLogSink
  /** The host's secret mask (MemoryManager's `mask`). */
  mask?: MemoryRedactor
}

export interface AgentMemory {
  /** null when no provider is left to serve this agent. */
  manager: MemoryManager | null
  warnings: StartupNotice[]
  /** The configured external provider and what became of it (null when none is configured). */
  external: { name: string; state: 'active' | 'failed' | 'unavailable' | 'refused' } | null
  /** `memory.nudge_interval` as upstream reads it (0: no memory review). */
  nudgeInterval: number
}

export type LoadMemoryProvider = (
  name: string
) => MemoryProvider | null | undefined | Promise<MemoryProvider | null | undefined>

export async function buildMemoryManagerForAgent(
  config: { memory?: MemoryConfig | null } | null | undefined,
  profileHome: string,
  loadProvider: LoadMemoryProvider,
  options: BuildAgentMemoryOptions
): Promise<AgentMemory> {
  const memory = config?.memory ?? {}
  const warnings: StartupNotice[] = []
  const warn = (text: string) => warnings.push({ level: 'warn', text })
  const log = memoryLogger(MANAGER_LOGGER, options.log)
  const manager = new MemoryManager({ activity: options.activity, log: options.log, mask: options.mask })
  // Upstream builds its MEMORY.md/USER.md store when EITHER flag is on (both default to true); each flag only
  // decides whether its file reaches the prompt. Turning memory_enabled off leaves USER.md and the tool.
  const nudgeInterval = nudgeIntervalOf(memory.nudge_interval)
  const memoryEnabled = flagOn(memory.memory_enabled)
  const userProfileEnabled = flagOn(memory.user_profile_enabled)
  if (memoryEnabled || userProfileEnabled) {
    manager.addProvider(
      new BuiltinMemoryProvider({
        memoryEnabled,
        userProfileEnabled,
        limits: memoryLimitsOf(config as Record<string, unknown> | null | undefined),
        ...options.builtin
      })
    )
  }

  // Upstream skips a blank name but looks up any other exactly as written (its plugin folder by that name), so
  // ' holographic ' is no provider there: taking it trimmed would write a store upstream never reads on this profile.
  const name = typeof memory.provider === 'string' && memory.provider.trim() ? memory.provider : ''
  // A value that is no name (5, true, a list): upstream's agent fails on it and runs with built-in memory only,
  // which it logs as a warning; so does this, where the chat and the log show it.
  if (memory.provider != null && typeof memory.provider !== 'string')
    warn(
      `memory.provider in config.yaml is not a provider name (${JSON.stringify(memory.provider)}); continuing with built-in memory only.`
    )
  let external: MemoryProvider | null = null
  let state: NonNullable<AgentMemory['external']>['state'] = 'failed'
  // A load that went wrong before the manager met the provider is recorded here, once per build, as the manager
  // records a failed or refused initialize: the host's 'provider' status line only says what became of it and is
  // no error of its own (it counted each failed start twice on the Memory page).
  const loadFailed = (summary: string) => {
    try {
      options.activity?.record({
        provider: name,
        kind: 'error',
        name: 'load',
        ok: false,
        summary,
        sessionId: options.sessionId || null
      })
    } catch {
      // the activity log is a view: losing one entry must not fail the build
    }
  }
  if (name && name !== BUILTIN_PROVIDER_NAME) {
    try {
      // A plugin whose load never settles (a top-level await on a dead backend) must not hold the agent build.
      const limit = hookTimeoutMs()
      const loaded = await withTimeout(
        Promise.resolve().then(() => loadProvider(name)),
        limit
      )
      if (loaded.timedOut) {
        log.error(`Memory provider '${name}' did not load within ${limit} ms`, { subject: `provider ${name}` })
        loadFailed(`did not load within ${limit / 1000} s`)
        warn(
          `Memory provider '${name}' did not load within ${limit / 1000} s; continuing without it. Run \`caduceus logs errors\` for details.`
        )
      } else {
        external = loaded.value ?? null
        if (!external) {
          warn(`Memory provider '${name}' is not installed; continuing without it.`)
          loadFailed('not installed')
        }
      }
    } catch (err) {
      // A ProviderLoadError carries a chat-safe text (no paths) and a detail for the log.
      const e = err as { userMessage?: unknown; detail?: unknown }
      log.error(
        `Memory provider '${name}' failed to load: ${typeof e?.detail === 'string' ? e.detail : errorText(err)}`,
        { subject: `provider ${name}` }
      )
      loadFailed(typeof e?.userMessage === 'string' ? e.userMessage : 'failed to load')
      warn(
        typeof e?.userMessage === 'string'
          ? `${e.userMessage} Run \`caduceus logs errors\` for details.`
          : `Memory provider '${name}' failed to load; continuing without it. Run \`caduceus logs errors\` for details.`
      )
    }
    if (external && !safeAvailable(external)) {
      warn(`Memory provider '${name}' is unavailable${reason(external)}; continuing without it.`)
      loadFailed(`unavailable${reason(external)}`)
      external = null
      state = 'unavailable'
    }
    if (external && !manager.addProvider(external)) {
      warn(`Memory provider '${name}' could not be registered; continuing without it.`)
      loadFailed('could not be registered')
      external = null
    }
  }

  const {
    refused,
    timedOut,
    failed = []
  } = await manager.initializeAll(options.sessionId, {
    ...options.init,
    hermesHome: profileHome,
    platform: options.platform
  })
  for (const dropped of refused) {
    warn(
      `Memory provider '${dropped}' is off for this agent: the same provider instance already serves another profile, so it was not connected here. Run \`caduceus logs errors\` for details.`
    )
  }
  for (const dropped of timedOut) {
    warn(
      `Memory provider '${dropped}' did not finish starting in time; continuing without it. Run \`caduceus logs errors\` for details.`
    )
  }
  // An initialize that raised (a setting or a store the provider refuses) leaves the provider in place, as upstream
  // does, but not silently: the chat and the Memory page's picker say it did not start, and why.
  for (const f of failed)
    warn(
      `Memory provider '${f.name}' did not start: ${f.message.replace(/\.?$/, '.')} Its tools answer with this error until it is fixed.`
    )
  const failedStart = external !== null && failed.some((f) => f.name === external!.name)
  if (external && manager.providers.includes(external) && !failedStart) {
    log.info(`Memory provider '${external.name}' activated`)
    state = 'active'
  } else if (external) state = timedOut.includes(external.name) || failedStart ? 'failed' : 'refused'
  const status = name && name !== BUILTIN_PROVIDER_NAME ? { name, state } : null
  if (manager.providers.length === 0) {
    await manager.shutdownAll()
    return { manager: null, warnings, external: status, nudgeInterval }
  }
  return { manager, warnings, external: status, nudgeInterval }
}

/** A `memory.*_enabled` flag as upstream reads it: default on when absent, else Python truthiness (null, 0, '' are off). */
function flagOn(v: unknown): boolean {
  if (v === undefined) return true
  return !(v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0))
}

function safeAvailable(p: MemoryProvider): boolean {
  try {
    return p.isAvailable() === true
  } catch {
    return false // a check that throws is a provider that is not available
  }
}

function reason(p: MemoryProvider): string {
  try {
    const r = p.unavailableReason()
    return r ? ` (${r})` : ''
  } catch {
    return '' // no reason to show: the message still names the provider
  }
}
