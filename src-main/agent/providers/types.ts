/**
 * One normalized streaming interface over every provider API. A provider call yields text/reasoning
 * deltas as they arrive, then exactly one `done` event carrying the assembled response.
 */
import { redact } from '../../secrets'
import type { ConversationMessage } from '../../store'
import type { CallLimits } from './call-limits'
import type { JsonSchema, ToolCallRequest } from '../tools/registry'

export type ApiMode = 'chat_completions' | 'anthropic_messages'

export interface RuntimeConfig {
  model: string
  /** Billing/provider id: `openai`, `openrouter`, `anthropic`, `ollama`, `custom`, `demo`, … */
  provider: string
  baseUrl: string
  /** Never logged. Empty/undefined is fine for local servers. */
  apiKey?: string | null
  apiMode: ApiMode
  /** Retry count for 408/409/429/5xx and connection errors (call-limits.ts); overrides `limits.maxRetries`. */
  maxRetries?: number
  /** Inactivity / total / reply-size / retry limits per call (config.yaml `provider_limits`). */
  limits?: Partial<CallLimits>
  /** Per-request timeout (ms); defaults to the SDK's. */
  timeoutMs?: number
  /** Output cap per call; Anthropic requires one (default 4096). */
  maxTokens?: number
  /** Boolean provider capabilities from config.yaml (`model.capabilities`); part of the cache signature. */
  capabilities?: Record<string, boolean>
}

/** Mutable in place: the gateway updates it per message without rebuilding the agent. */
export interface ReasoningConfig {
  enabled?: boolean
  effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh'
  /** Anthropic thinking budget; derived from effort when absent. */
  budgetTokens?: number
}

/** One part of a multimodal user message, in OpenAI's chat shape (upstream's canonical internal shape). */
export type ContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } }

/**
 * An in-memory conversation message; `reasoning_details` keeps Anthropic thinking signatures for replay.
 * `parts`: a user message with images as sent to the provider (`content` then holds its text for memory,
 * token estimates and compression).
 */
export type AgentMessage = Omit<ConversationMessage, 'reasoning_details'> & {
  reasoning_details?: ThinkingBlock[]
  parts?: ContentPart[]
}

export interface ThinkingBlock {
  type: 'thinking' | 'redacted_thinking'
  thinking?: string
  signature?: string
  data?: string
}

export interface ToolSchema {
  type: 'function'
  function: { name: string; description: string; parameters: JsonSchema }
}

export interface ChatRequest {
  model: string
  messages: AgentMessage[]
  tools?: ToolSchema[]
  reasoning?: ReasoningConfig | null
  maxTokens?: number
}

/**
 * Token counts for one call. `inputTokens` EXCLUDES cache reads/writes (Anthropic's convention; OpenAI's
 * prompt_tokens is split accordingly), so input + cacheRead + cacheWrite = the whole prompt.
 * `reasoningTokens` is a part of `outputTokens`, reported for display.
 */
export interface NormalizedUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  reasoningTokens: number
}

export interface ProviderResponse {
  text: string
  reasoning: string
  toolCalls: ToolCallRequest[]
  finishReason: string | null
  usage: NormalizedUsage | null
  /** The model the provider says it used (may differ from the requested one). */
  model: string | null
  thinkingBlocks?: ThinkingBlock[]
  /** Set when Caduceus stopped reading at provider_limits.max_reply_chars (not the model's own output cap). */
  replyCapped?: true
  /** Set when the text held the reasoning inline (`<think>` blocks), taken out of `text` by the agent. */
  inlineThinking?: true
}

export type StreamEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** A tool call's name became known (its arguments are still streaming). */
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'done'; response: ProviderResponse }

export interface ProviderClient {
  readonly apiMode: ApiMode
  stream(req: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent, void, undefined>
}

export type ProviderErrorKind = 'http' | 'malformed' | 'network' | 'aborted' | 'config' | 'timeout'

/** Every provider failure becomes one of these: a clear message for the turn, never a host crash. */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind
  readonly status?: number
  /** Raised after the reply had begun (its response was open): the stream was cut short, not refused. */
  midStream = false
  /**
   * The body ended normally (no dropped connection) yet the reply is incomplete (a tool call's arguments cut): the
   * same request would be cut the same way, so it is not asked for again as it stands.
   */
  closedCleanly = false
  /**
   * The reply came whole but held nothing to act on (Anthropic: no content block, and a stop reason other than
   * `end_turn` or `refusal`): upstream takes it as an invalid response and asks again on its own, slower schedule.
   */
  emptyReply = false
  constructor(kind: ProviderErrorKind, message: string, status?: number) {
    // A provider may echo the key (or any secret) back in its error text: mask every known secret value.
    super(redact(message))
    this.name = 'ProviderError'
    this.kind = kind
    this.status = status
  }
}

/**
 * A stream whose body ended normally without the provider's end-of-reply marker (OpenAI-style: no finish_reason and
 * no `[DONE]`) is taken as complete, as upstream takes it — except when a tool call's arguments in it are JSON cut off
 * before their end (json-prefix.ts; not JSON written wrong): that call was cut mid-value, so the reply is cut off and none of its calls run; the loop keeps its text as a
 * part and asks the model to go on, as upstream does. (Anthropic keeps such a call, never run: anthropic.ts.)
 * (A connection that drops or resets mid-body is an error the SDK raises, never a normal end.)
 */
export function cutOffStream(marker: string, toolCalls: number): ProviderError {
  const err = new ProviderError(
    'network',
    `the provider's stream ended with a tool call's arguments cut off (no ${marker}); ${toolCalls === 1 ? 'its tool call was' : `its ${toolCalls} tool calls were`} not run`
  )
  err.midStream = true
  err.closedCleanly = true
  return err
}

/** Whether a tool call's streamed arguments are whole: empty (no arguments) or one complete JSON value. */
export function wholeArguments(args: string): boolean {
  if (!args.trim()) return true
  try {
    JSON.parse(args)
    return true
  } catch {
    return false // a SyntaxError: the arguments were cut off mid-value
  }
}

export const emptyUsage = (): NormalizedUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0
})

/** Non-negative finite integer from an untrusted provider field. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0
}
