/** The Agent's options, results and the shapes it needs from store, memory and log (structural, so any implementation fits). */
import type { Tokens, TurnDeltaBody, TurnDeltaKind } from '@shared/contract'
import type { Logger } from '@shared/contract/log'
import type { TurnCostStatus } from '@shared/contract/money'
import type {
  ConversationMessage,
  CreateSessionOptions,
  NewMessage,
  SessionRecord,
  SessionStore,
  UsageReport
} from '../store'
import type { ContentPart, ReasoningConfig, RuntimeConfig } from './providers/types'
import type { ToolRegistry } from './tools/registry'
import type { TurnExplainer } from './turn-explainer'

type MaybePromise<T> = T | Promise<T>

/** The subset of SessionStore the agent writes through (src-main/store/types.ts). */
export interface AgentStore {
  appendMessage(sessionId: string, message: NewMessage): MaybePromise<number>
  recordUsage(sessionId: string, usage: UsageReport): MaybePromise<unknown>
  createSession(sessionId: string, source: string, options?: CreateSessionOptions): MaybePromise<unknown>
  endSession(sessionId: string, endReason: string): MaybePromise<unknown>
  getSession(sessionId: string): MaybePromise<SessionRecord | null | undefined>
  /** Keeps the prompt the turn used on the session row (upstream's update_system_prompt); unchanged → no write. */
  setSystemPrompt?(sessionId: string, prompt: string): MaybePromise<unknown>
  /** Upstream's compression lease on a session: acquire (false: another program compresses it), refresh, release. */
  compressionLock(op: 'acquire' | 'refresh' | 'release', sessionId: string, holder: string): MaybePromise<boolean>
  /** The highest id among the session's live rows (read when a compression starts). */
  messageWatermark(sessionId: string): MaybePromise<number>
  /**
   * Writes a compression continuation (its row, lineage title, prompt, handoff rows with their originals' times, the
   * parent's rows added above `watermark` meanwhile) and ends the parent with 'compression', in one transaction.
   */
  publishCompressionChild(
    handoff: Parameters<SessionStore['publishCompressionChild']>[0]
  ): MaybePromise<Awaited<ReturnType<SessionStore['publishCompressionChild']>>>
  getMessagesAsConversation(
    sessionId: string,
    options?: { repairAlternation?: boolean; afterId?: number }
  ): MaybePromise<ConversationMessage[]>
  /** The v31 identity of a stored message (the user's, saved by the caller before the turn), undefined without. */
  messageUids?(sessionId: string, messageId: number): MaybePromise<ConversationMessage['identity']>
}

type MemoryMessage = { role: string; content?: unknown; [key: string]: unknown }

/** The MemoryManager hooks the loop calls (hermes-spec §4.2); every one is optional. */
export interface AgentMemory {
  onTurnStart?(
    turnNumber: number,
    message: string,
    options?: { remainingTokens?: number; model?: string; platform?: string; toolCount?: number }
  ): unknown
  prefetchAll?(query: string, options?: { sessionId?: string; turnId?: string }): MaybePromise<string>
  syncAll?(
    user: string,
    assistant: string,
    options?: { sessionId?: string; turnId?: string; messages?: MemoryMessage[] }
  ): unknown
  /** Warm the next turn's recall in the background (after this turn's sync). */
  queuePrefetchAll?(query: string, options?: { sessionId?: string }): unknown
  /** `onSessionEnd` then `onSessionSwitch(reset)` as one background task (a true session boundary). */
  commitSessionBoundaryAsync?(
    messages: MemoryMessage[],
    opts: { newSessionId: string; parentSessionId?: string; reason?: string }
  ): unknown
  /** Parent-side: a delegated child finished. */
  onDelegation?(task: string, result: string, options?: { childSessionId?: string }): unknown
  onPreCompress?(
    messages: MemoryMessage[],
    options?: { evidenceMessages?: MemoryMessage[]; requireCheckpoint?: boolean }
  ): MaybePromise<string>
  onSessionSwitch?(
    newSessionId: string,
    options?: { parentSessionId?: string; reset?: boolean; reason?: string }
  ): unknown
  onSessionEnd?(messages: MemoryMessage[]): unknown
  buildSystemPrompt?(): MaybePromise<string>
  shutdownAll?(): unknown
}

export interface CompressionConfig {
  enabled: boolean
  /** Compress when the estimated prompt exceeds this fraction of `contextLength` (default 0.5). */
  threshold?: number
  contextLength?: number
  /** Summary length budget as a fraction of the threshold tokens (default 0.2). */
  targetRatio?: number
  /** Most recent messages kept verbatim in the child session (default 6; config.yaml's reader, config/compression.ts, gives upstream's 20). */
  protectLastN?: number
  /** `compression.checkpoint_required`: a failed or refused memory checkpoint aborts the compression (fail closed). */
  requireCheckpoint?: boolean
}

export interface AgentOptions {
  profile: string
  sessionId: string
  store: AgentStore
  runtime: RuntimeConfig
  tools: ToolRegistry
  maxIterations: number
  /** The profile's persona (SOUL.md); stored with the session. */
  systemPrompt?: string | null
  /** A stateless caller's own system text (API `system` messages, `instructions`): sent, never stored. */
  ephemeralSystemPrompt?: string | null
  memory?: AgentMemory | null
  reasoningConfig?: ReasoningConfig | null
  /** Conversation to resume with; otherwise loaded from the store on the first turn. */
  history?: ConversationMessage[]
  /**
   * The conversation's routing key (the cache's, the tools' session context). Never recorded on a session row: upstream's
   * own desktop, cli, api_server and cron rows carry none, and its `hermes status` counts every open keyed row as a live
   * messaging-gateway conversation.
   */
  gatewaySessionKey: string
  compression?: CompressionConfig | null
  log?: Logger | null
  /** `sessions.source` when the agent has to create its session row (default `desktop`). */
  source?: string
  /** Abort a turn whose model call shows no activity for this many seconds (tool execution is exempt). */
  inactivityTimeoutSec?: number | null
  /** Platform name passed to memory hooks (default `desktop`). */
  platform?: string
  /** config.yaml `memory.nudge_interval` as upstream reads it (0 or less, or absent: no memory review). */
  memoryNudgeInterval?: number
  /**
   * `display.turn_completion_explainer` (turn-explainer.ts; default `on`): whether a turn that ends without an answer
   * says why. Asked at each turn's end, as upstream reads config.yaml then (a cached agent follows an edit).
   */
  turnExplainer?: () => TurnExplainer
}

/** The contract's list (shared/contract/agent.ts), not a copy. */
export type DeltaKind = TurnDeltaKind

/** One streamed piece of a turn (contract `TurnDelta` minus the turn handle the gateway adds). */
export type AgentDelta = TurnDeltaBody

export interface TurnOptions {
  onDelta?: (delta: AgentDelta) => void
  signal?: AbortSignal
  turnId?: string
  /**
   * The user message is already in the store (e.g. a delegation-complete notice appended by the
   * registry): the turn answers it without saving it a second time.
   */
  savedUserMessageId?: number
  /** The user message with images (OpenAI content parts); `text` is then its text for memory and estimates. */
  parts?: ContentPart[]
  /**
   * The conversation the model reads before this message, in place of the session's stored transcript (an API
   * caller's own messages, as upstream's server runs them); the session still stores only what this turn adds.
   */
  history?: Array<{ role: string; content: unknown }>
  /**
   * Messages the caller stored just before the user message (its id is `savedUserMessageId`): held after the
   * transcript, before the message, where the transcript was not just loaded with them.
   */
  prelude?: Array<{ role: 'user' | 'assistant'; content: string }>
}

/** The contract's `Tokens` (shared/contract/common.ts), not a copy. */
export type TurnTokens = Tokens

export type TurnStatus = 'completed' | 'interrupted' | 'error'
/** `partial`: the reply was still cut off after the bounded requests to continue (upstream's `partial` result). */
export type ExitReason = 'completed' | 'max_iterations' | 'interrupted' | 'inactivity' | 'error' | 'partial'

export interface TurnResult {
  status: TurnStatus
  exitReason: ExitReason
  error?: string
  /** The answer is incomplete but kept (status `error`, exitReason `partial`): `finalText` is what there is. */
  partial?: boolean
  finalText: string
  tokens: TurnTokens
  /** Sum of priced calls; null when nothing was priced (never a fake $0). */
  costUsd: number | null
  /** `partial` when some calls were priced and some were not. */
  costStatus: TurnCostStatus
  apiCalls: number
  messagesSaved: number
  /** The session the turn ended in (differs from the starting one after compression). */
  sessionId: string
}

/** What the last step of the agent was, for the gateway's idle sweep and the UI. */
export type ActivityProvenance = 'unknown' | 'turn' | 'model' | 'tool' | 'memory' | 'compression' | 'user'
