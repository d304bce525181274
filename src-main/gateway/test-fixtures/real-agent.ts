// The real Agent a Gateway builds in the integration test and the gateway bench: no tools, the turn's resolved
// runtime and reasoning, everything else the agent's defaults (a turn through the real wire, not a stand-in).
import { createAgent, ToolRegistry, type Agent } from '../../agent'
import type { SessionStore } from '../../store'
import type { BuildAgentInput } from '../index'

type AgentOptions = Parameters<typeof createAgent>[0]

export function buildRealAgent(i: BuildAgentInput<SessionStore>, extra: Partial<AgentOptions> = {}): Agent {
  return createAgent({
    profile: i.profile,
    sessionId: i.sessionId,
    store: i.store,
    tools: new ToolRegistry(),
    maxIterations: i.maxIterations,
    gatewaySessionKey: i.sessionKey,
    reasoningConfig: i.reasoningConfig,
    runtime: {
      model: i.runtime.model,
      provider: i.runtime.provider,
      baseUrl: i.runtime.baseUrl,
      apiKey: i.runtime.apiKey,
      apiMode: i.runtime.apiMode
    },
    ...extra
  })
}
