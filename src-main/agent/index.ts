/**
 * Agent runtime: provider clients (OpenAI-compatible, Anthropic), the tool registry and dispatch, the
 * tool loop with per-message persistence, pricing, compression, and the scripted provider server.
 */
import { Agent } from './agent'
import type { AgentOptions } from './types'

export { Agent } from './agent'

/** Builds an Agent; the provider client is created lazily on the first model call. */
export function createAgent(opts: AgentOptions): Agent {
  return new Agent(opts)
}

export { loadPricer } from './pricing'
export { ToolRegistry, type ToolDefinition, type ToolContext } from './tools/registry'
export { startDemoProvider } from './scripted'
