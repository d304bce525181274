import type { AgentMessage, ChatRequest, ReasoningConfig, RuntimeConfig } from './providers/types'
import type { ToolRegistry } from './tools/registry'

/** What a request takes from the agent besides its messages. */
export interface RequestSetup {
  readonly runtime: RuntimeConfig
  readonly tools: ToolRegistry
  readonly reasoningConfig: ReasoningConfig | null
}

/**
 * A model call on the agent's setup: the system prompt (none when empty) before `conversation`, the agent's model, the
 * tools it offers (left out when none), its reasoning setting and reply cap (`maxTokens` when a call raises it). The
 * turn's calls and the memory review's are built here, so the review offers the model what the turn offers.
 */
export function chatRequest(
  setup: RequestSetup,
  system: string,
  conversation: readonly AgentMessage[],
  maxTokens?: number
): ChatRequest {
  const tools = setup.tools.schemas()
  return {
    model: setup.runtime.model,
    messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...conversation],
    tools: tools.length ? tools : undefined,
    reasoning: setup.reasoningConfig,
    maxTokens: maxTokens ?? setup.runtime.maxTokens
  }
}
