/**
 * MemoryManager (hermes-spec §4.2): the built-in provider plus at most ONE external provider, bound to
 * one profile home at `initializeAll`. Every tool call and hook passes the caller-scope guard first and
 * then runs explicitly under the owner's home; every provider failure is logged and swallowed.
 */
import { getHermesHome, withHomeOverride } from '../scope'
import { RECALL_OUTCOME, RECALL_QUERY_PREFIX } from '@shared/contract/memory'
import type { MemoryActivityInput, MemoryActivitySink } from './activity-types'
import { BackgroundQueue } from './background-queue'
import {
  bindOwner,
  checkCaller,
  claimInstance,
  releaseInstance,
  INSTANCE_SHARED_CODE,
  MemoryCallRefusedError,
  REFUSAL_CODE,
  refusalResult,
  type HomeKeyFn,
  type ScopeOwner
} from './caller-scope'
import { CALLER_SCOPE_LOGGER, MANAGER_LOGGER, memoryLogger, type MemoryLogger, type MemoryLogSink } from './log'
import {
  acceptsToolKwargs,
  clip,
  committedMemoryWrites,
  DEFAULT_CORE_TOOL_NAMES,
  DRAIN_TIMEOUT_MS,
  elapsed,
  errorText,
  now,
  PREFETCH_TIMEOUT_MS,
  hookTimeoutMs,
  withTimeout
} from './manager-support'
import {
  BUILTIN_PROVIDER_NAME,
  type ChatMessage,
  type DelegationOptions,
  type InitializeOptions,
  type MemoryProvider,
  type MemoryToolSchema,
  type MemoryWriteAction,
  type MemoryWriteTarget,
  type PreCompressOptions,
  type PrefetchOptions,
  type SessionSwitchOptions,
  type SyncTurnOptions,
  type TurnStartOptions
} from './provider'
import { LAST_RESORT, type MemoryRedactor } from './redact'
import { parseJsonOr } from '@shared/contract/errors'

interface MemoryManagerOptions {
  activity?: MemoryActivitySink
  prefetchTimeoutMs?: number
  drainTimeoutMs?: number
  /** Bound on other calls into an external provider (default: hookTimeoutMs()). */
  hookTimeoutMs?: number
  coreToolNames?: Iterable<string>
  /** How a home's identity is worked out (default: scope's realpath key); seed 000 counts its calls. */
  homeKey?: HomeKeyFn
  /** Where this manager's records go (the host's log); without one, warnings and errors go to stderr. */
  log?: MemoryLogSink
  /** The host's secret mask, for what leaves toward a provider or a log; without one, the process's last resort. */
  mask?: MemoryRedactor
}

export interface ToolCallOptions {
  callerGsk?: string
  sessionId?: string
  turnId?: string
}
export interface ShutdownReport {
  drain: 'not_started' | 'drained' | 'timed_out'
  abandoned: number
}

interface Entry {
  provider: MemoryProvider
  tools: MemoryToolSchema[]
  acceptsKwargs: boolean
}

const stillRunning = (hook: string) => `skipped: the previous ${hook} call timed out and is still running`

class HookTimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`)
  }
}

const isBuiltin = (p: MemoryProvider) => p.name === BUILTIN_PROVIDER_NAME

/** A tool result reporting failure (`{"error": …}` or `{"success": false}`) counts as an error in the activity log. */
function looksFailed(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false
  const r = parseJsonOr(text, null) as { error?: unknown; success?: unknown } | null
  return !!r && typeof r === 'object' && ((r.error !== undefined && r.error !== null) || r.success === false)
}

export class MemoryManager {
  private entries: Entry[] = []
  private readonly toolOwners = new Map<string, Entry>()
  private owner: ScopeOwner | null = null
  private sessionId = ''
  private readonly inflightPrefetch = new Map<MemoryProvider, Promise<unknown>>()
  /** Per provider, the hooks whose last call timed out and has not settled yet (skipped until it does). */
  private readonly stuckHooks = new Map<MemoryProvider, Set<string>>()
  private readonly queue = new BackgroundQueue((label, err) => this.fail('background', label, err))
  private readonly coreTools: Set<string>
  private readonly activity?: MemoryActivitySink
  private readonly prefetchTimeoutMs: number
  private readonly drainTimeoutMs: number
  private readonly hookTimeoutMs: number
  private readonly homeKey?: HomeKeyFn
  private readonly log: MemoryLogger
  /** Caller-scope refusals (seed 000), under their own logger name. */
  private readonly scopeLog: MemoryLogger
  private readonly mask: MemoryRedactor

  constructor(options: MemoryManagerOptions = {}) {
    this.log = memoryLogger(MANAGER_LOGGER, options.log)
    this.mask = options.mask ?? LAST_RESORT
    this.scopeLog = memoryLogger(CALLER_SCOPE_LOGGER, options.log)
    this.homeKey = options.homeKey
    this.activity = options.activity
    this.coreTools = new Set(options.coreToolNames ?? DEFAULT_CORE_TOOL_NAMES)
    this.prefetchTimeoutMs = options.prefetchTimeoutMs ?? PREFETCH_TIMEOUT_MS
    this.drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS
    this.hookTimeoutMs = options.hookTimeoutMs ?? hookTimeoutMs()
  }

  get providers(): MemoryProvider[] {
    return this.entries.map((e) => e.provider)
  }
  /** Home bound at initialize (null before). */
  get boundHome(): string | null {
    return this.owner?.home ?? null
  }
  get pendingBackground(): number {
    return this.queue.pending
  }
  hasTool(name: string): boolean {
    return this.toolOwners.has(name)
  }
  getToolSchemas(): MemoryToolSchema[] {
    return [...this.toolOwners.values()].flatMap((e) => e.tools)
  }

  /** builtin: always; external: only the first. Schemas are read before any state changes. */
  addProvider(provider: MemoryProvider): boolean {
    if (this.entries.some((e) => e.provider === provider)) return true
    let schemas: MemoryToolSchema[]
    try {
      const raw = provider.getToolSchemas()
      schemas = Array.isArray(raw) ? raw.filter((s) => s && typeof s.name === 'string' && s.name.length > 0) : []
    } catch (err) {
      this.fail(provider.name, 'get_tool_schemas', err)
      return false
    }
    if (!isBuiltin(provider)) {
      const existing = this.entries.find((e) => !isBuiltin(e.provider))
      if (existing) {
        this.log.warn(
          `Rejected memory provider '${provider.name}' — external provider '${existing.provider.name}' is already registered. ` +
            'Only one external memory provider is allowed at a time. Configure which one via memory.provider in config.yaml.'
        )
        return false
      }
    }
    const entry: Entry = { provider, tools: [], acceptsKwargs: acceptsToolKwargs(provider) }
    for (const schema of schemas) {
      if (!isBuiltin(provider) && this.coreTools.has(schema.name)) {
        this.log.warn(`Memory provider '${provider.name}' tool '${schema.name}' refused: it shadows a core tool`)
      } else if (this.toolOwners.has(schema.name)) {
        this.log.warn(
          `Memory provider '${provider.name}' tool '${schema.name}' ignored: '${this.toolOwners.get(schema.name)!.provider.name}' registered it first`
        )
      } else {
        entry.tools.push(schema)
        this.toolOwners.set(schema.name, entry)
      }
    }
    this.entries.push(entry)
    return true
  }

  /**
   * Bind to one profile home and initialize providers there. A provider instance already serving another
   * profile is dropped (never re-initialized: that would move its binding), and so is one whose initialize
   * did not finish within the hook timeout (its state is unknown). Returns the names of both.
   */
  async initializeAll(
    sessionId: string,
    options: Partial<InitializeOptions> = {}
  ): Promise<{ refused: string[]; timedOut: string[]; failed?: Array<{ name: string; message: string }> }> {
    const hermesHome = options.hermesHome ?? getHermesHome()
    const platform = options.platform ?? 'cli'
    this.owner = bindOwner(hermesHome, this.homeKey)
    this.sessionId = sessionId
    const refused: string[] = []
    const timedOut: string[] = []
    const failed: Array<{ name: string; message: string }> = []
    for (const entry of [...this.entries]) {
      const p = entry.provider
      if (!claimInstance(p, hermesHome, this.scopeLog)) {
        this.remove(entry)
        refused.push(p.name)
        this.report({
          provider: p.name,
          kind: 'refusal',
          name: 'initialize',
          ok: false,
          summary: `${INSTANCE_SHARED_CODE}: provider instance already serves another profile`
        })
        continue
      }
      const r = await this.attempt(p, 'initialize', 'provider', () =>
        p.initialize(sessionId, { ...options, hermesHome, platform })
      )
      if (r.timedOut) {
        this.remove(entry)
        // Dropped here, so it serves no profile: the instance is free for another profile's manager again.
        releaseInstance(p, hermesHome)
        timedOut.push(p.name)
      } else if (r.failure !== undefined) {
        // Kept, as upstream keeps a provider whose initialize raised (its tools answer with their own error).
        failed.push({ name: p.name, message: r.failure })
      }
    }
    return { refused, timedOut, ...(failed.length ? { failed } : {}) }
  }

  async handleToolCall(name: string, args: Record<string, unknown>, opts: ToolCallOptions = {}): Promise<string> {
    const entry = this.toolOwners.get(name)
    if (!entry) return JSON.stringify({ error: `No memory provider handles tool '${name}'` })
    if (!args || typeof args !== 'object' || Array.isArray(args))
      return JSON.stringify({ error: `Invalid arguments for '${name}': expected an object` })
    const p = entry.provider
    const verdict = checkCaller(this.owner, `tool ${name}`, this.homeKey, this.scopeLog)
    if (!verdict.ok) {
      this.report({
        provider: p.name,
        kind: 'refusal',
        name,
        sessionId: opts.sessionId,
        turnId: opts.turnId,
        ok: false,
        summary: `${REFUSAL_CODE}: refused (${verdict.reason})`
      })
      return refusalResult()
    }
    const kwargs = {
      hermesHome: this.owner?.home ?? verdict.callerHome ?? undefined,
      callerGsk: opts.callerGsk ?? '',
      sessionId: opts.sessionId ?? this.sessionId,
      turnId: opts.turnId
    }
    const started = now()
    try {
      const out = await this.asOwner(() =>
        entry.acceptsKwargs ? p.handleToolCall(name, args, kwargs) : p.handleToolCall(name, args)
      )
      const text = typeof out === 'string' ? out : JSON.stringify(out ?? null)
      this.report({
        provider: p.name,
        kind: 'tool_call',
        name,
        sessionId: kwargs.sessionId,
        turnId: opts.turnId,
        ok: !looksFailed(text),
        latencyMs: elapsed(started),
        summary: clip(`${name} ${JSON.stringify(args)}`),
        size: text.length
      })
      if (isBuiltin(p)) await this.mirrorBuiltinWrite(args, text, opts.turnId)
      else this.reportProviderWrite(p, name, args, text, opts.turnId, kwargs.sessionId)
      return text
    } catch (err) {
      this.fail(p.name, `tool ${name}`, err, started)
      return JSON.stringify({ error: `Memory tool '${name}' failed: ${this.mask.redact(errorText(err))}` })
    }
  }

  async buildSystemPrompt(): Promise<string> {
    if (!this.guard('system_prompt')) return ''
    const blocks = await this.each('system_prompt', 'hook', this.providers, (p) => p.systemPromptBlock())
    return blocks.filter((b): b is string => typeof b === 'string' && b.trim().length > 0).join('\n\n')
  }

  /** Recall for this turn: builtin inline, externals concurrently, each bounded by the prefetch timeout. */
  async prefetchAll(query: string, options: PrefetchOptions = {}): Promise<string> {
    if (!this.guard('prefetch')) return ''
    const cleaned = this.mask.redact(query.trim())
    if (!cleaned) return ''
    const { turnId, ...forProviders } = options
    const parts = await this.asOwner(() =>
      Promise.all(this.providers.map((p) => this.prefetchOne(p, cleaned, forProviders, turnId)))
    )
    return parts.filter((s) => s.trim().length > 0).join('\n\n')
  }

  queuePrefetchAll(query: string, options: PrefetchOptions = {}): void {
    if (!this.guard('queue_prefetch')) return
    const cleaned = this.mask.redact(query.trim())
    if (!cleaned) return
    // The end-of-turn warm-up is a hook: the recall a turn used is the `prefetch` event (Memory page, fold).
    this.background('queue_prefetch', () =>
      this.each('queue_prefetch', 'hook', this.providers, (p) => p.queuePrefetch(cleaned, options))
    )
  }

  syncAll(userContent: string, assistantContent: string, options: SyncTurnOptions = {}): void {
    if (!this.guard('sync_turn')) return
    const user = this.mask.redact(userContent)
    const assistant = this.mask.redact(assistantContent)
    const { turnId, ...forProviders } = options
    this.background('sync_turn', async () => {
      for (const p of this.providers)
        await this.call(
          p,
          'sync_turn',
          'sync',
          () => p.syncTurn(user, assistant, forProviders),
          user.length + assistant.length,
          turnId
        )
    })
  }

  /** `onSessionEnd` then `onSessionSwitch(reset)` as ONE background task. */
  commitSessionBoundaryAsync(
    messages: ChatMessage[],
    opts: { newSessionId: string; parentSessionId?: string; reason?: string }
  ): void {
    if (!this.guard('session_boundary')) return
    this.background('session_boundary', async () => {
      await this.each('on_session_end', 'hook', this.providers, (p) => p.onSessionEnd(messages))
      await this.each('on_session_switch', 'hook', this.providers, (p) =>
        p.onSessionSwitch(opts.newSessionId, {
          parentSessionId: opts.parentSessionId ?? '',
          reset: true,
          reason: opts.reason ?? 'new_session'
        })
      )
      this.sessionId = opts.newSessionId
    })
  }

  /** Wait for queued background work. False when it did not finish within `timeoutMs`. */
  flushPending(timeoutMs = DRAIN_TIMEOUT_MS): Promise<boolean> {
    return this.queue.flush(timeoutMs)
  }

  async onTurnStart(turnNumber: number, message: string, options: TurnStartOptions = {}): Promise<void> {
    if (!this.guard('on_turn_start')) return
    await this.each('on_turn_start', 'hook', this.providers, (p) => p.onTurnStart(turnNumber, message, options))
  }

  async onSessionEnd(messages: ChatMessage[]): Promise<void> {
    if (!this.guard('on_session_end')) return
    await this.each('on_session_end', 'hook', this.providers, (p) => p.onSessionEnd(messages))
  }

  async onSessionSwitch(newSessionId: string, options: SessionSwitchOptions = {}): Promise<void> {
    if (!this.guard('on_session_switch')) return
    await this.each('on_session_switch', 'hook', this.providers, (p) => p.onSessionSwitch(newSessionId, options))
    this.sessionId = newSessionId
  }

  /**
   * Pre-compression hook. With `requireCheckpoint` it fails closed: a refused caller, a failing v2
   * provider, or no v2 provider completing all throw, so compression never drops unsaved context.
   */
  async onPreCompress(messages: ChatMessage[], options: PreCompressOptions = {}): Promise<string> {
    const required = options.requireCheckpoint === true
    if (!this.guard('on_pre_compress')) {
      if (required) throw new MemoryCallRefusedError()
      return ''
    }
    const parts: string[] = []
    let checkpointed = false
    for (const p of this.providers) {
      const v2 = p.preCompressCheckpointApiVersion >= 2
      const started = now()
      try {
        if (this.stuckHooks.get(p)?.has('on_pre_compress')) throw new Error(stillRunning('on_pre_compress'))
        const out = await this.bounded(p, 'on_pre_compress', () =>
          v2 ? p.onPreCompress(messages, options) : p.onPreCompress(messages)
        )
        if (v2) checkpointed = true
        if (typeof out === 'string' && out.trim()) parts.push(out)
        this.report({
          provider: p.name,
          kind: 'hook',
          name: 'on_pre_compress',
          ok: true,
          latencyMs: elapsed(started),
          summary: 'pre-compress',
          size: typeof out === 'string' ? out.length : null
        })
      } catch (err) {
        this.fail(p.name, 'on_pre_compress', err, started)
        if (required && v2) throw err
      }
    }
    if (required && !checkpointed) throw new Error('No active memory provider completed pre-compress checkpoint API v2')
    return parts.join('\n\n')
  }

  /** Mirrors built-in memory writes to the external provider (never to the builtin itself). */
  async onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryWriteTarget,
    content: string,
    metadata?: Record<string, unknown>
  ): Promise<void> {
    if (!this.guard('on_memory_write')) return
    await this.writeToExternals(action, target, content, metadata)
  }

  async onDelegation(task: string, result: string, options: DelegationOptions = {}): Promise<void> {
    if (!this.guard('on_delegation')) return
    await this.each('on_delegation', 'hook', this.providers, (p) => p.onDelegation(task, result, options))
  }

  /** Drain background work for at most the drain timeout, then shut providers down in reverse order. */
  async shutdownAll(): Promise<ShutdownReport> {
    const pending = this.queue.pending
    const drained = pending === 0 ? true : await this.queue.flush(this.drainTimeoutMs)
    const report: ShutdownReport = {
      drain: pending === 0 ? 'not_started' : drained ? 'drained' : 'timed_out',
      abandoned: drained ? 0 : this.queue.pending
    }
    if (!drained)
      this.log.warn(`Memory shutdown abandoned ${report.abandoned} background task(s) after ${this.drainTimeoutMs} ms`)
    for (const p of [...this.providers].reverse()) await this.call(p, 'shutdown', 'provider', () => p.shutdown())
    return report
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────────

  private guard(hook: string): boolean {
    const verdict = checkCaller(this.owner, `hook ${hook}`, this.homeKey, this.scopeLog)
    if (verdict.ok) return true
    this.report({
      provider: this.providers.map((p) => p.name).join(',') || 'none',
      kind: 'refusal',
      name: hook,
      ok: false,
      summary: `${REFUSAL_CODE}: refused (${verdict.reason})`
    })
    return false
  }

  /** Run under the owner's home explicitly, whatever the ambient scope is. */
  private asOwner<T>(fn: () => T): T {
    return this.owner ? withHomeOverride(this.owner.home, fn) : fn()
  }

  private background(label: string, task: () => Promise<unknown>): void {
    this.queue.submit(label, () => this.asOwner(task))
  }

  private async prefetchOne(
    p: MemoryProvider,
    query: string,
    options: PrefetchOptions,
    turnId?: string
  ): Promise<string> {
    if (this.inflightPrefetch.has(p)) {
      this.report({
        provider: p.name,
        kind: 'prefetch',
        name: 'prefetch',
        ok: true,
        summary: 'skipped: previous prefetch still running'
      })
      return ''
    }
    const started = now()
    const work = Promise.resolve().then(() => p.prefetch(query, options))
    this.inflightPrefetch.set(p, work)
    void work.then(
      () => this.inflightPrefetch.delete(p),
      () => this.inflightPrefetch.delete(p)
    )
    // One `prefetch` event per provider and turn, ok or failed, naming the query it answered.
    const asked = `${RECALL_QUERY_PREFIX}${JSON.stringify(clip(query, 80))}${RECALL_OUTCOME}`
    const failed = (err: unknown) => {
      const message = this.mask.redact(errorText(err))
      this.log.warn(`Memory provider '${p.name}' prefetch: ${message}`, { subject: `provider ${p.name}` })
      this.report({
        provider: p.name,
        kind: 'prefetch',
        name: 'prefetch',
        turnId,
        ok: false,
        latencyMs: elapsed(started),
        summary: `${asked}failed: ${clip(message)}`
      })
      return ''
    }
    try {
      const outcome = isBuiltin(p)
        ? { timedOut: false as const, value: await work }
        : await withTimeout(work, this.prefetchTimeoutMs)
      if (outcome.timedOut) return failed(new Error(`timed out after ${this.prefetchTimeoutMs} ms`))
      const text = typeof outcome.value === 'string' ? outcome.value : ''
      this.report({
        provider: p.name,
        kind: 'prefetch',
        name: 'prefetch',
        turnId,
        ok: true,
        latencyMs: elapsed(started),
        summary: `${asked}${text ? `recalled: ${clip(text)}` : 'nothing recalled'}`,
        size: text.length
      })
      return text
    } catch (err) {
      return failed(err)
    }
  }

  private async each<T>(
    hook: string,
    kind: MemoryActivityInput['kind'],
    providers: MemoryProvider[],
    fn: (p: MemoryProvider) => T | Promise<T>,
    size?: number
  ): Promise<Array<T | undefined>> {
    const out: Array<T | undefined> = []
    for (const p of providers) out.push(await this.call(p, hook, kind, () => fn(p), size))
    return out
  }

  private async call<T>(
    p: MemoryProvider,
    hook: string,
    kind: MemoryActivityInput['kind'],
    fn: () => T | Promise<T>,
    size?: number,
    turnId?: string
  ): Promise<T | undefined> {
    return (await this.attempt(p, hook, kind, fn, size, turnId)).value
  }

  /**
   * Run one call into a provider under its owner's home. An external provider's call is bounded by the hook
   * timeout: past it the call is reported as failed (log + activity) and the caller carries on without it.
   */
  private async bounded<T>(p: MemoryProvider, hook: string, fn: () => T | Promise<T>): Promise<T> {
    const work = (async () => this.asOwner(fn))()
    if (isBuiltin(p)) return work
    const outcome = await withTimeout(work, this.hookTimeoutMs)
    if (outcome.timedOut) {
      // The call goes on in the background; until it settles, the same hook on this provider is skipped, so a
      // provider that hangs holds one unfinished call per hook, not one more per turn.
      const stuck = this.stuckHooks.get(p) ?? new Set<string>()
      this.stuckHooks.set(p, stuck.add(hook))
      const settled = () => void stuck.delete(hook)
      void work.then(settled, settled)
      throw new HookTimeoutError(this.hookTimeoutMs)
    }
    return outcome.value
  }

  private async attempt<T>(
    p: MemoryProvider,
    hook: string,
    kind: MemoryActivityInput['kind'],
    fn: () => T | Promise<T>,
    size?: number,
    turnId?: string
  ): Promise<{ value: T | undefined; timedOut: boolean; failure?: string }> {
    if (this.stuckHooks.get(p)?.has(hook)) {
      this.report({
        provider: p.name,
        kind,
        name: hook,
        turnId,
        ok: false,
        summary: stillRunning(hook)
      })
      return { value: undefined, timedOut: false }
    }
    const started = now()
    try {
      const value = await this.bounded(p, hook, fn)
      this.report({
        provider: p.name,
        kind,
        name: hook,
        turnId,
        ok: true,
        latencyMs: elapsed(started),
        summary: hook,
        size: size ?? null
      })
      return { value, timedOut: false }
    } catch (err) {
      const failure = this.fail(p.name, hook, err, started, turnId)
      return { value: undefined, timedOut: err instanceof HookTimeoutError, failure }
    }
  }

  /** A provider's own tool call that changed its memory (its `writeOf`) is a write, like a built-in one. */
  private reportProviderWrite(
    p: MemoryProvider,
    name: string,
    args: Record<string, unknown>,
    result: string,
    turnId: string | undefined,
    sessionId: string | undefined
  ): void {
    let action: string | null = null
    try {
      action = typeof p.writeOf === 'function' ? p.writeOf(name, args) : null
    } catch (err) {
      // A plugin's bug: the call's result stands, only its activity entry is lost, and the log says why.
      this.log.warn(`Memory provider '${p.name}' writeOf: ${this.mask.redact(errorText(err))}`, {
        subject: `provider ${p.name}`
      })
      action = null
    }
    if (!action || looksFailed(result)) return
    const content = typeof args.content === 'string' ? args.content : JSON.stringify(args)
    this.report({
      provider: p.name,
      kind: 'write',
      name: `${name}:${action}`,
      sessionId,
      turnId,
      ok: true,
      summary: clip(content),
      size: content.length
    })
  }

  private async mirrorBuiltinWrite(args: Record<string, unknown>, result: string, turnId?: string): Promise<void> {
    // A batch is mirrored item by item, as upstream's notify_memory_tool_write expands it.
    for (const write of committedMemoryWrites(args, result)) {
      const shown = write.content || write.oldText || ''
      this.report({
        provider: BUILTIN_PROVIDER_NAME,
        kind: 'write',
        turnId,
        name: `${write.action}:${write.target}`,
        ok: true,
        summary: clip(shown),
        size: shown.length
      })
      await this.onMemoryWrite(
        write.action,
        write.target,
        write.content,
        write.oldText ? { old_text: write.oldText } : undefined
      )
    }
  }

  private writeToExternals(
    action: MemoryWriteAction,
    target: MemoryWriteTarget,
    content: string,
    metadata?: Record<string, unknown>
  ) {
    const externals = this.providers.filter((p) => !isBuiltin(p))
    return this.each(
      'on_memory_write',
      'hook',
      externals,
      (p) => p.onMemoryWrite(action, target, content, metadata),
      content.length
    )
  }

  private remove(entry: Entry): void {
    this.entries = this.entries.filter((e) => e !== entry)
    for (const [name, owner] of this.toolOwners) if (owner === entry) this.toolOwners.delete(name)
  }

  /** Log and record a hook's failure; returns its message, clipped and with secrets redacted. */
  private fail(provider: string, label: string, err: unknown, started?: number, turnId?: string): string {
    const message = this.mask.redact(errorText(err))
    this.log.warn(`Memory provider '${provider}' ${label}: ${message}`, { subject: `provider ${provider}` })
    this.report({
      provider,
      kind: 'error',
      name: label,
      turnId,
      ok: false,
      latencyMs: started === undefined ? null : elapsed(started),
      summary: clip(message)
    })
    return clip(message)
  }

  private report(input: MemoryActivityInput): void {
    if (!this.activity) return
    try {
      this.activity.record({ ...input, sessionId: input.sessionId ?? (this.sessionId || null) })
    } catch {
      // The activity log is a view; losing one event must not fail a memory hook.
    }
  }
}
