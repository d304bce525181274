/**
 * Agent runtime: provider clients (OpenAI-compatible, Anthropic), the tool registry and dispatch, the
 * tool loop with per-message persistence, pricing, compression, and the scripted provider server.
 */
import { Agent } from './agent'
import type { AgentOptions } from './types'

export { Agent, AgentClosedError } from './agent'
export { InterruptReason } from './turn-context'
export type {
  AgentOptions, AgentStore, AgentMemory, AgentLog, AgentDelta, DeltaKind, TurnOptions, TurnResult, TurnStatus, TurnTokens,
  ExitReason, CompressionConfig, ActivityProvenance
} from './types'

/** Builds an Agent; the provider client is created lazily on the first model call. */
export function createAgent(opts: AgentOptions): Agent {
  return new Agent(opts)
}

export { priceCall, PRICING_SOURCE, type PriceResult } from './pricing'
export {
  createProviderClient, ProviderError, toAnthropicMessages, toAnthropicTools, normalizeOpenAIUsage,
  type ApiMode, type RuntimeConfig, type ReasoningConfig, type AgentMessage, type ChatRequest, type ProviderClient,
  type ProviderResponse, type StreamEvent, type NormalizedUsage, type ToolSchema
} from './providers'
export {
  ToolRegistry, executeToolCall, dispatchSequential, dispatchConcurrent, canRunConcurrently,
  type ToolDefinition, type ToolContext, type ToolCallRequest, type ToolCallResult, type ToolCallerAgent, type JsonSchema
} from './tools/registry'
export { startScriptedProvider, startDemoProvider, demoResponder, DEMO_MODEL_LABEL } from './scripted'
export type { ScriptedProvider, ScriptedProviderOptions, ScriptReply, ScriptedToolCall, RecordedRequest, ScriptHandler } from './scripted'
export { resolveCompression, SUMMARY_PREFIX } from './compression'
export { newSessionId } from './ids'
export { sanitizeHistory, estimateTokens } from './messages'
