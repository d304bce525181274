/**
 * MemoryProvider: the hooks of hermes-spec §4.1 in camelCase. Every hook may be sync or async; the
 * manager awaits whatever comes back. Providers keep their store binding on the INSTANCE (set from
 * `initialize`'s `hermesHome`): on a multiplexed host anything kept at module or class level is shared by
 * every profile, which is exactly the bug the caller scope guards against.
 */
export type MaybePromise<T> = T | Promise<T>

export interface MemoryToolSchema {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export interface InitializeOptions {
  /** Always present: the home of the profile this instance serves. */
  hermesHome: string
  /** Always present, e.g. `api_server`, `desk`, `cli`. */
  platform: string
  agentContext?: 'primary' | 'subagent' | 'cron' | 'flush'
  /** Profile name. */
  agentIdentity?: string
  agentWorkspace?: string
  parentSessionId?: string
  userId?: string
  userIdAlt?: string
  /** A stable per-conversation key to scope long-term memory by (an API caller's X-Hermes-Session-Key). */
  gatewaySessionKey?: string
  [extra: string]: unknown
}

/** Third argument of `handleToolCall` (upstream's **kwargs). */
export interface ToolCallKwargs {
  /** The home this provider's manager serves (what `initialize` bound). */
  hermesHome?: string
  /** Gateway session key of the calling turn. */
  callerGsk?: string
  sessionId?: string
  turnId?: string
}

export interface ChatMessage {
  role: string
  content?: unknown
  [key: string]: unknown
}

export interface PrefetchOptions {
  sessionId?: string
  /** The turn recalling (activity feed only; not passed on to providers). */ turnId?: string
}
export interface SyncTurnOptions {
  sessionId?: string
  /** The turn synced (activity feed only; not passed on to providers). */
  turnId?: string
  messages?: ChatMessage[]
  turnAuthor?: string
}
export interface TurnStartOptions {
  remainingTokens?: number
  model?: string
  platform?: string
  toolCount?: number
}
export interface SessionSwitchOptions {
  parentSessionId?: string
  reset?: boolean
  rewound?: boolean
  reason?: string
}
export interface PreCompressOptions {
  evidenceMessages?: ChatMessage[]
  requireCheckpoint?: boolean
}
export interface DelegationOptions {
  childSessionId?: string
  [extra: string]: unknown
}
export type MemoryWriteAction = 'add' | 'replace' | 'remove'
export type MemoryWriteTarget = 'memory' | 'user'

/** Opt-in fail-closed checkpoint contract (providers set `preCompressCheckpointApiVersion = 2`). */
export const PRE_COMPRESS_CHECKPOINT_API_VERSION = 2

export abstract class MemoryProvider {
  abstract readonly name: string
  /** 1 = plain `onPreCompress(messages)`; 2 = also receives evidence + `requireCheckpoint` and may fail closed. */
  preCompressCheckpointApiVersion = 1

  /** Must not touch the network. */
  abstract isAvailable(): boolean
  abstract initialize(sessionId: string, options: InitializeOptions): MaybePromise<void>
  abstract getToolSchemas(): MemoryToolSchema[]

  unavailableReason(): string {
    return ''
  }
  /**
   * What `initialize` would refuse, told without starting anything (a setting it cannot convert): the picker's
   * availability shows it before a turn meets it. '' when nothing is known.
   */
  setupProblem(): string {
    return ''
  }
  handleToolCall(toolName: string, _args: Record<string, unknown>, _kwargs?: ToolCallKwargs): MaybePromise<string> {
    throw new Error(`Memory provider '${this.name}' does not handle tool '${toolName}'`)
  }
  systemPromptBlock(): MaybePromise<string> {
    return ''
  }
  prefetch(_query: string, _options?: PrefetchOptions): MaybePromise<string> {
    return ''
  }
  queuePrefetch(_query: string, _options?: PrefetchOptions): MaybePromise<void> {}
  syncTurn(_userContent: string, _assistantContent: string, _options?: SyncTurnOptions): MaybePromise<void> {}
  onTurnStart(_turnNumber: number, _message: string, _options?: TurnStartOptions): MaybePromise<void> {}
  /** Only at true session boundaries. */
  onSessionEnd(_messages: ChatMessage[]): MaybePromise<void> {}
  onSessionSwitch(_newSessionId: string, _options?: SessionSwitchOptions): MaybePromise<void> {}
  onPreCompress(_messages: ChatMessage[], _options?: PreCompressOptions): MaybePromise<string> {
    return ''
  }
  onMemoryWrite(
    _action: MemoryWriteAction,
    _target: MemoryWriteTarget,
    _content: string,
    _metadata?: Record<string, unknown>
  ): MaybePromise<void> {}
  onDelegation(_task: string, _result: string, _options?: DelegationOptions): MaybePromise<void> {}
  shutdown(): MaybePromise<void> {}
  /** Read-only initialize (e.g. a status page); defaults to `initialize`. */
  initializeForInspection(sessionId: string, options: InitializeOptions): MaybePromise<void> {
    return this.initialize(sessionId, options)
  }
  /** What the last recall found, for the 🧠 indicator; null = nothing to show. */
  recallStatus(): RecallStatus | null {
    return null
  }
  getConfigSchema(): Array<Record<string, unknown>> {
    return []
  }
  saveConfig(_values: Record<string, unknown>, _hermesHome: string): MaybePromise<void> {}
  backupPaths(): string[] {
    return []
  }
  /**
   * Whether one of this provider's own tool calls writes memory, and what it did (e.g. 'add'); null for a
   * read. The activity log counts it as a write (Memory page "Writes", the turn fold's "written").
   */
  writeOf(_toolName: string, _args: Record<string, unknown>): string | null {
    return null
  }
  /** Feeds the gateway cache signature: a change here rebuilds cached agents. */
  identitySignature(): Record<string, unknown> {
    return {}
  }
}

export const BUILTIN_PROVIDER_NAME = 'builtin'
export const INDICATOR_GLYPH = '🧠'
export interface RecallStatus {
  providerLabel: string
  count: number
  glyph: string
}
