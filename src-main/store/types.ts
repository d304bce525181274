/**
 * The store's public shapes, agreed up front so agent, gateway, delegation and memory can build against
 * them while the store is written. SQL keeps upstream snake_case names; these TS shapes are camelCase
 * except `SessionRow`, which is the raw upstream row.
 */
import type { ToolCall } from '@shared/contract'

/** Raw `sessions` row as stored (upstream column names). Unknown extra columns may be present. */
export interface SessionRow {
  id: string
  source: string
  model: string | null
  model_config: string | null
  parent_session_id: string | null
  session_key: string | null
  user_id: string | null
  started_at: number
  ended_at: number | null
  end_reason: string | null
  message_count: number
  tool_call_count: number
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_write_tokens: number
  reasoning_tokens: number
  estimated_cost_usd: number | null
  actual_cost_usd: number | null
  cost_status: string | null
  cost_source: string | null
  billing_provider: string | null
  billing_base_url: string | null
  title: string | null
  profile_name: string | null
  api_call_count: number
  last_activity_at: number | null
  archived: number
  pinned: number
  [column: string]: unknown
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

export interface NewMessage {
  role: string
  /** A list (multimodal parts: text + image_url) is stored as upstream stores it, "\0json:" + JSON. */
  content?: string | null | Array<Record<string, unknown>>
  toolCalls?: ToolCall[] | null
  toolCallId?: string | null
  toolName?: string | null
  reasoning?: string | null
  tokenCount?: number | null
  finishReason?: string | null
  /** Epoch seconds; defaults to now. */
  timestamp?: number
  displayKind?: string | null
  displayMetadata?: Record<string, unknown> | null
}

/** OpenAI-style message for rebuilding an agent's history. */
export interface ConversationMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
  tool_call_id?: string
  name?: string
  reasoning?: string | null
}

/** One provider call's usage, written in delta mode (hermes-spec §1.9). */
export interface UsageReport {
  model: string
  provider: string
  baseUrl: string
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
  pricingVersion?: string | null
}
