/**
 * The store's public shapes, agreed up front so agent, gateway, delegation and memory can build against
 * them while the store is written. SQL keeps upstream snake_case names; these TS shapes are camelCase
 * (`SessionRecord` is derived from the `sessions` table definition).
 */
import type { ToolCall } from '@shared/contract'
import type { sessions } from './schema'

/** `snake_case` → `camelCase`, for record keys derived from a table's column names. */
export type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S

/**
 * One `sessions` row as a camelCase record, derived from the table definition (`schema/sessions.ts`): every
 * declared column, in every home v21 → v30 (a column the home lacks reads as its declared default, or null).
 */
export type SessionRecord = {
  [K in keyof typeof sessions.$inferSelect as Camel<K & string>]: (typeof sessions.$inferSelect)[K]
}

export interface CreateSessionOptions {
  model?: string | null
  /** Object is stored as JSON; carries lineage markers `_branched_from` / `_delegate_from` / `_reset_from`. */
  modelConfig?: Record<string, unknown> | null
  systemPrompt?: string | null
  userId?: string | null
  sessionKey?: string | null
  chatId?: string | null
  chatType?: string | null
  threadId?: string | null
  parentSessionId?: string | null
  cwd?: string | null
  profileName?: string | null
  displayName?: string | null
  title?: string | null
  /** Epoch seconds; defaults to now. */
  startedAt?: number
}

/**
 * A message's v31 identity (store/message-identity.ts): minted once, at the row's first insert, and kept by every copy
 * of the same message (a compression continuation's carried rows, a branch's copied turns), as upstream keeps it.
 */
export interface MessageUids {
  messageUid: string
  /** An assistant row with calls: provider call id → its uid (a list where one id names several occurrences). */
  toolCallUids?: Record<string, string | string[]>
  /** A tool result: the uid of the call it answers (none when that call's row had no map). */
  toolCallUid?: string
  /** A row other messages were folded into: their uids, in the order their text follows. */
  absorbedMessageUids?: string[]
}

export interface NewMessage {
  role: string
  /** A list (multimodal parts: text + image_url) is stored as upstream stores it, "\0json:" + JSON. */
  content?: string | null | Array<Record<string, unknown>>
  toolCalls?: ToolCall[] | null
  /** The calls a model made: written with upstream's `call_id` / `response_item_id` keys (message-write.ts). */
  modelCalls?: true
  toolCallId?: string | null
  toolName?: string | null
  reasoning?: string | null
  /** Upstream's `reasoning_content` (assistant rows): written only where the home has the column. */
  reasoningContent?: string | null
  /** Upstream's `reasoning_details` (e.g. Anthropic thinking blocks with signatures), stored as json.dumps text. */
  reasoningDetails?: Array<Record<string, unknown>> | null
  tokenCount?: number | null
  finishReason?: string | null
  /** Epoch seconds; defaults to now. */
  timestamp?: number
  displayKind?: string | null
  displayMetadata?: Record<string, unknown> | null
  /**
   * On a v31 home. Given: the identity a copy of a stored message keeps (what it lacks is minted or paired as for a
   * new row). After the append the store sets it to the identity the row was written with, so the caller's
   * in-memory message carries it on (upstream's flush stamps the same dict). Older homes: ignored, left as given.
   */
  identity?: Partial<MessageUids>
  /**
   * The row is a compression summary whatever its text opens with: a stored summary copied on (a v31 home's
   * `_compressed_summary` read back), written with the flag where the home has the column.
   */
  compressedSummary?: true
}

/** OpenAI-style message for rebuilding an agent's history. */
export interface ConversationMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
  tool_call_id?: string
  name?: string
  reasoning?: string | null
  /** An assistant row's finish_reason (upstream's get_messages_as_conversation restores it). */
  finish_reason?: string | null
  /**
   * An assistant row's `reasoning_details` as stored (upstream's get_messages_as_conversation restores it): for an
   * Anthropic reply, its thinking blocks with their signatures, which a resumed turn must send back.
   */
  reasoning_details?: Array<Record<string, unknown>>
  /** The row's v31 identity (a v31 home only): never sent to a provider, kept by every copy of the message. */
  identity?: MessageUids
  /**
   * The row's v31 `_compressed_summary` flag is set (merged-summary.ts rowSummary: the authority when set): never sent
   * to a provider; a later compression folds the row in as an earlier summary, and a copy keeps the flag.
   */
  compressedSummary?: true
  /**
   * Its calls are ones a model made (not a client's history): stored with upstream's `call_id` and
   * `response_item_id` beside `id`, as upstream's agent stores every call it gets; never sent to a provider, kept by a
   * copy of the message.
   */
  modelCalls?: true
}

/** One provider call's usage, written in delta mode (hermes-spec §1.9). */
export interface UsageReport {
  model: string
  provider: string
  baseUrl: string
  /**
   * `billing_mode` as upstream writes it: nothing for a call billed per token (its session row keeps NULL, its route
   * row ''), `subscription_included` for a subscription route; an older Caduceus wrote the API mode here.
   */
  billingMode?: string
  task?: string
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  reasoningTokens: number
  apiCalls: number
  /** null = unpriced: never recorded as $0. */
  costUsd: number | null
  costStatus: 'estimated' | 'billed' | 'unpriced'
  /**
   * Where the price came from, in upstream's words (`official_docs_snapshot`, `provider_models_api`, …); without it,
   * what the status implies (`official_docs_snapshot` for an estimate, `provider_cost_api` billed, `none` unpriced).
   */
  costSource?: string
  pricingVersion?: string | null
}
