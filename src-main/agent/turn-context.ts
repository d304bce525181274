/** State of one running turn, shared by the loop, the model call, the tool runner and compression. */
import type { AgentMessage, NormalizedUsage } from './providers/types'
import type { TurnAccounting } from './turn-accounting'
import type { ActivityProvenance, AgentDelta } from './types'

export interface TurnContext {
  readonly turnId: string
  /** Aborted by interrupt(), the caller's signal, close() or the inactivity watchdog. */
  readonly signal: AbortSignal
  readonly acct: TurnAccounting
  emit(delta: AgentDelta): void
  /** This turn's recall as its fenced `<memory-context>` block ('' when none); added to the turn's user message in requests only (never persisted). */
  memoryContext: string
  /** The persisted user message that opened the turn (the memory context attaches to it). */
  userMessage: AgentMessage | null
  /** Tool execution is exempt from the inactivity watchdog (tools have their own limits). */
  watchdogPaused: boolean
  /** Set after a failed compression so the turn doesn't retry it every iteration. */
  compressionDisabled: boolean
  /**
   * Set once a tool round has run: the next visible text streamed opens with a paragraph break, so the answer after
   * a tool call doesn't run on from the text before it (upstream's stream does the same, once, however many rounds).
   */
  streamBreak?: boolean
  lastUsage: NormalizedUsage | null
  /**
   * The last model call's usage and price, saved with the assistant message it produced (`display_metadata.usage`)
   * so a transcript shows tokens and cost per turn.
   */
  lastCall?: { usage: NormalizedUsage | null; costUsd: number | null; costStatus: string; model: string }
}

export type Touch = (desc: string, provenance: ActivityProvenance) => void

/** Why a turn's controller was aborted; the turn reads it to pick its status. */
export class InterruptReason extends Error {
  constructor(
    readonly kind: 'interrupt' | 'closed' | 'inactivity' | 'caller',
    message: string
  ) {
    super(message)
    this.name = 'InterruptReason'
  }
}
