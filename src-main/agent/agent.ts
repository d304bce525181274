/**
 * The Agent: one conversation's runtime. Owns the provider client (lazily created, dropped by the soft
 * `releaseClients()`), the in-memory history, activity tracking for the gateway cache, steering and
 * interrupts. The tool loop itself lives in turn-loop.ts.
 */
import { resolveCompression } from './compression'
import { newTurnId } from './ids'
import { appendStamped, sanitizeHistory } from './messages'
import { createProviderClient } from './providers'
import type { AgentMessage, ProviderClient, ReasoningConfig, RuntimeConfig } from './providers/types'
import type { ToolRegistry } from './tools/registry'
import { InterruptReason, type TurnContext } from './turn-context'
import { runLoop, type LoopHost } from './turn-loop'
import type { TurnExplainer } from './turn-explainer'
import { runTurn } from './turn'
import { runMemoryReview } from './memory-review'
import type { ActivityProvenance, AgentMemory, AgentOptions, AgentStore, TurnOptions, TurnResult } from './types'
import { readRetrying, type ConversationMessage, type NewMessage } from '../store'
import type { Logger } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'

class AgentClosedError extends Error {
  constructor() {
    super('agent is closed')
    this.name = 'AgentClosedError'
  }
}

export class Agent implements LoopHost {
  readonly profile: string
  readonly store: AgentStore
  readonly runtime: RuntimeConfig
  readonly tools: ToolRegistry
  readonly memory: AgentMemory | null
  readonly log: Logger | null
  readonly gatewaySessionKey: string
  readonly defaultSource: string
  readonly platform: string
  readonly compressionConfig: ReturnType<typeof resolveCompression>
  /** True while context compression runs (the gateway queues a message sent meanwhile rather than interrupt it). */
  compressing = false
  readonly inactivityTimeoutMs: number | null
  /** Changes when compression rotates the conversation into a child session. */
  sessionId: string
  /** The gateway refreshes it from config on each cache hit. */
  maxIterations: number
  /** Mutable in place: the gateway sets it per message without rebuilding (excluded from the cache signature). */
  reasoningConfig: ReasoningConfig | null
  /** Provider client; null until the first call and after releaseClients(). */
  client: ProviderClient | null = null
  /** The conversation as sent to the model (system prompt excluded). Empty ⇒ reloaded from the store next turn. */
  sessionMessages: AgentMessage[]
  /** How many of `sessionMessages` are known to be in the store (all of them: messages are saved as produced). */
  lastFlushedDbIdx = 0
  /** Provider calls in the current turn (the gateway resets it to 0 per turn). */
  apiCallCount = 0
  /** Warnings from building this agent (e.g. a refused memory provider), shown once by the gateway. */
  startupNotices: string[] = []
  /** Epoch MILLISECONDS of the last step (model chunk, tool start/finish, turn start/end). */
  lastActivityTs = Date.now()
  lastActivityDesc = 'created'
  lastActivityProvenance: ActivityProvenance = 'unknown'
  turnsRun = 0
  /** `memory.nudge_interval`: a memory review after every this many user turns without a memory call (0: never). */
  readonly memoryNudgeInterval: number
  /** Whether a turn that ends without an answer says why (turn-explainer.ts), asked at each turn's end. */
  readonly turnExplainer: () => TurnExplainer
  /** User turns since the model last called the memory tool (memory-review.ts counts them). */
  turnsSinceMemory = 0
  /** The background memory review running now, if any (awaited by close(), and by tests). */
  memoryReview: Promise<void> | null = null

  private readonly baseSystemPrompt: string
  private readonly ephemeralSystemPrompt: string
  private memoryPromptBlock: string | null = null
  /** The system prompt last stored on the session row (so an unchanged prompt costs no write). */
  private storedPrompt: string | null = null
  private sessionEnsured = false
  /** `sessionMessages` came from a caller's history (TurnOptions.history): a turn without one reloads the store's. */
  private callerTranscript = false
  private readonly steers: string[] = []
  private current: { controller: AbortController; done: Promise<TurnResult> } | null = null
  private closedFlag = false
  private reviewController: AbortController | null = null

  constructor(opts: AgentOptions) {
    if (!opts || typeof opts.sessionId !== 'string' || !opts.sessionId.trim())
      throw new TypeError('Agent needs a sessionId')
    if (!opts.store || !opts.tools || !opts.runtime) throw new TypeError('Agent needs store, tools and runtime')
    this.profile = opts.profile
    this.sessionId = opts.sessionId
    this.store = opts.store
    this.runtime = { ...opts.runtime }
    this.tools = opts.tools
    this.memory = opts.memory ?? null
    this.log = opts.log ?? null
    this.gatewaySessionKey = opts.gatewaySessionKey ?? ''
    this.defaultSource = opts.source ?? 'desktop'
    this.platform = opts.platform ?? 'desktop'
    this.memoryNudgeInterval = opts.memoryNudgeInterval ?? 0
    this.turnExplainer = opts.turnExplainer ?? (() => 'on')
    // As upstream's loop: calls go on while their count is below the budget (12.5: 13 calls; Infinity: no limit).
    this.maxIterations = opts.maxIterations > 0 ? opts.maxIterations : 1
    this.reasoningConfig = opts.reasoningConfig ?? null
    this.compressionConfig = resolveCompression(opts.compression)
    this.inactivityTimeoutMs =
      opts.inactivityTimeoutSec && opts.inactivityTimeoutSec > 0 ? opts.inactivityTimeoutSec * 1000 : null
    this.baseSystemPrompt = opts.systemPrompt?.trim() ?? ''
    this.ephemeralSystemPrompt = opts.ephemeralSystemPrompt?.trim() ?? ''
    this.sessionMessages = sanitizeHistory(opts.history)
    this.lastFlushedDbIdx = this.sessionMessages.length
  }

  get running(): boolean {
    return this.current !== null
  }
  get closed(): boolean {
    return this.closedFlag
  }

  /** Runs one user turn to completion, interruption or error. Throws only if closed or already running. */
  runTurn(text: string, opts: TurnOptions = {}): Promise<TurnResult> {
    if (this.closedFlag) return Promise.reject(new AgentClosedError())
    if (this.current) return Promise.reject(new Error('a turn is already running on this agent'))
    if (typeof text !== 'string' || !text.trim()) return Promise.reject(new TypeError('message text is required'))
    const controller = new AbortController()
    const done = runTurn(this, text, controller, { ...opts, turnId: opts.turnId ?? newTurnId() }).finally(() => {
      this.current = null
    })
    this.current = { controller, done }
    return done
  }

  /** Queue a user message for the next iteration boundary (after in-flight tool calls finish). */
  steer(text: string): boolean {
    if (this.closedFlag || typeof text !== 'string' || !text.trim()) return false
    this.steers.push(text)
    this.touch('steering message queued', 'user')
    return true
  }

  /** Abort the in-flight request; the turn ends 'interrupted' keeping everything already saved. */
  interrupt(reason = 'interrupted by user'): void {
    this.current?.controller.abort(new InterruptReason('interrupt', reason))
  }

  /** Soft release (gateway cache eviction): drop the provider client, keep the conversation state. */
  releaseClients(): void {
    this.client = null
  }

  /** Hard close: stop any turn, drop clients, tear down tools' per-task state, shut memory down. runTurn afterwards throws. */
  async close(): Promise<void> {
    if (this.closedFlag) return
    this.closedFlag = true
    this.current?.controller.abort(new InterruptReason('closed', 'agent closed'))
    await this.current?.done.catch(() => undefined)
    this.reviewController?.abort()
    await this.memoryReview
    this.releaseClients()
    this.steers.length = 0
    for (const tool of this.tools.list()) {
      if (!tool.cleanupTask) continue
      try {
        await tool.cleanupTask(this.sessionId)
      } catch (err) {
        this.log?.warn('agent', `tool ${tool.name} cleanup failed: ${errorMessage(err)}`)
      }
    }
    try {
      // A hard close is a true session boundary: providers see the session end (drained by shutdownAll).
      await this.memory?.commitSessionBoundaryAsync?.(
        this.sessionMessages.map((m) => ({ ...m })),
        { newSessionId: '', parentSessionId: this.sessionId, reason: 'session_end' }
      )
      await this.memory?.shutdownAll?.()
    } catch (err) {
      this.log?.warn('agent', `memory shutdown failed: ${errorMessage(err)}`)
    }
  }

  /** End-of-session memory commit before a soft eviction (hermes-spec §3.9). */
  async commitMemorySession(messages?: AgentMessage[] | null): Promise<void> {
    try {
      await this.memory?.onSessionEnd?.((messages ?? this.sessionMessages).map((m) => ({ ...m })))
    } catch (err) {
      this.log?.warn('agent', `memory session commit failed: ${errorMessage(err)}`)
    }
  }

  // ── used by the turn ────────────────────────────────────────────────────────────────────────

  readonly touch = (desc: string, provenance: ActivityProvenance): void => {
    this.lastActivityTs = Date.now()
    this.lastActivityDesc = desc
    this.lastActivityProvenance = provenance
  }

  getClient(): ProviderClient {
    this.client ??= createProviderClient(this.runtime)
    return this.client
  }

  /**
   * What a session row this agent starts records as its `model_config`: upstream's keys in its order (max_iterations,
   * reasoning_config as upstream parses an effort, max_tokens), the settings the conversation began with.
   */
  sessionModelConfig(): Record<string, unknown> {
    const r = this.reasoningConfig
    return {
      max_iterations: this.maxIterations,
      reasoning_config: !r ? null : r.enabled === false ? { enabled: false } : { enabled: true, effort: r.effort },
      max_tokens: this.runtime.maxTokens ?? null
    }
  }

  systemPromptText(): string {
    // The caller's own instructions go last, after persona and memory (upstream's ephemeral prompt slot).
    return [this.baseSystemPrompt, this.memoryPromptBlock ?? '', this.ephemeralSystemPrompt]
      .filter(Boolean)
      .join('\n\n')
  }

  takeSteers(): string[] {
    return this.steers.splice(0)
  }
  hasSteers(): boolean {
    return this.steers.length > 0
  }

  async save(msg: AgentMessage, ctx: TurnContext, extra: Partial<NewMessage> = {}): Promise<number> {
    const sessionId = this.sessionId
    const id = await appendStamped(this.store, sessionId, msg, extra)
    // Kept in memory as upstream keeps it, so rows copied into a compression continuation keep it too.
    if (msg.role === 'assistant' && extra.finishReason) msg.finish_reason = extra.finishReason
    this.sessionMessages.push(msg)
    this.lastFlushedDbIdx = this.sessionMessages.length
    ctx.acct.messagesSaved++
    ctx.emit({ kind: 'message_saved', messageId: id, savedSessionId: sessionId })
    return id
  }

  /**
   * Creates the session row if missing, loads history if none in memory (or takes the caller's `history` as this
   * turn's), and fetches the memory prompt block once. Its reads wait out another program's commit (readRetrying): a
   * rollback-journal home blocks readers meanwhile.
   */
  async ensureReady(history?: Array<{ role: string; content: unknown }>): Promise<void> {
    if (!this.sessionEnsured) {
      const row = await readRetrying(() => this.store.getSession(this.sessionId))
      // Upstream's first turn upserts its row whether or not one exists, so a row without a model_config (an API
      // conversation seeded from the client's history, an older row) gets this agent's settings; the rest is kept.
      if (!row || row.modelConfig == null) {
        await this.store.createSession(this.sessionId, this.defaultSource, {
          model: this.runtime.model,
          modelConfig: this.sessionModelConfig(),
          profileName: this.profile,
          systemPrompt: this.baseSystemPrompt || null
        })
      }
      this.sessionEnsured = true
    }
    if (history) {
      // A caller's messages: sanitizeHistory keeps only the roles and fields a conversation message has.
      this.sessionMessages = sanitizeHistory(history as ConversationMessage[])
      this.lastFlushedDbIdx = this.sessionMessages.length
      this.callerTranscript = true
    } else if (this.sessionMessages.length === 0 || this.callerTranscript) {
      this.callerTranscript = false
      this.sessionMessages = sanitizeHistory(
        await readRetrying(() => this.store.getMessagesAsConversation(this.sessionId))
      )
      this.lastFlushedDbIdx = this.sessionMessages.length
    }
    if (this.memoryPromptBlock === null && this.memory?.buildSystemPrompt) {
      try {
        this.memoryPromptBlock = (await this.memory.buildSystemPrompt()) || ''
      } catch (err) {
        this.memoryPromptBlock = ''
        this.log?.warn('agent', `memory system prompt failed: ${errorMessage(err)}`)
      }
    }
    // "What did the model see": the assembled prompt is stored on the session, as upstream does.
    const prompt = this.systemPromptText()
    if (prompt && prompt !== this.storedPrompt && this.store.setSystemPrompt) {
      try {
        await this.store.setSystemPrompt(this.sessionId, prompt)
        this.storedPrompt = prompt
      } catch (err) {
        this.log?.warn('agent', `storing the system prompt failed: ${errorMessage(err)}`)
      }
    }
  }

  /** Starts the memory review in the background on a copy of the conversation (one at a time; close() stops it). */
  startMemoryReview(): void {
    if (this.memoryReview || this.closedFlag) return
    const controller = (this.reviewController = new AbortController())
    const snapshot = this.sessionMessages.map((m) => ({ ...m }))
    this.memoryReview = runMemoryReview(this, snapshot, controller.signal).finally(() => {
      this.memoryReview = null
      this.reviewController = null
    })
  }

  /** @internal the loop, exposed for turn.ts */
  readonly loop = (ctx: TurnContext) => runLoop(this, ctx)
}
