/**
 * The memory nudge (config.yaml `memory.nudge_interval`), as upstream runs it: every Nth user turn since the model
 * last called the built-in `memory` tool, once the turn has answered, a background review call replays the
 * conversation with one extra user message asking what is worth saving. It offers the same tools (the request
 * matches the turn's), runs only the memory tool, stores no rows and records no usage on the session: its only
 * effect is what it writes to memory. On the API server the count comes from the caller's transcript on every
 * request, as upstream's agent-per-request counts it. Golden: test/fixtures/upstream/memory-nudge/cases.json.
 */
import { callModel } from './model-call'
import { executeToolCall } from './tools/registry'
import { TurnAccounting } from './turn-accounting'
import { assistantMessage } from './messages'
import type { AgentMessage } from './providers/types'
import { chatRequest } from './chat-request'
import type { Agent } from './agent'
import type { TurnContext } from './turn-context'
import { errorMessage } from '@shared/contract/errors'

/** The review's own call budget (upstream's review agent: 16). */
const REVIEW_MAX_CALLS = 16
const MEMORY_TOOL = 'memory'
/** The API server's platform (gateway/channels.ts), whose agents upstream builds one per request. */
const API_SERVER_PLATFORM = 'api_server'

/** The review's user message (our wording; upstream's prose is its own, and no upstream test compares it). */
const MEMORY_REVIEW_PROMPT =
  '[System: Memory check. Look back over the conversation above. Has the user told you anything about ' +
  'themselves (preferences, habits, background, how they like to work) or about their environment and projects ' +
  'that will still matter in later conversations? If so, save it now with the memory tool: short, factual ' +
  'entries, one fact each, merged into an existing entry where one already covers it. Leave out what only ' +
  'mattered for this task, anything temporary, and anything already saved. If nothing qualifies, say so ' +
  'briefly and make no call. Only the memory tool can run here; other tools will be refused.]'

/** Whether this turn's answer should be followed by a review; counts the turn (upstream counts at the turn's start). */
export function countNudgeTurn(agent: Agent, priorUserTurns: () => number): boolean {
  const interval = agent.memoryNudgeInterval
  if (interval <= 0 || !agent.memory || !agent.tools.get(MEMORY_TOOL)) return false
  // A new agent on an existing conversation picks the count up from its user turns (upstream: prior % interval).
  // Upstream's API server builds a new agent for every request, so there each request counts from the caller's
  // transcript alone and a memory call in an earlier request is forgotten; Caduceus keeps that agent, so it recounts.
  if (agent.platform === API_SERVER_PLATFORM) agent.turnsSinceMemory = priorUserTurns() % interval
  else if (agent.turnsRun === 1 && agent.turnsSinceMemory === 0) agent.turnsSinceMemory = priorUserTurns() % interval
  agent.turnsSinceMemory++
  if (agent.turnsSinceMemory < interval) return false
  agent.turnsSinceMemory = 0
  return true
}

/** A memory call with well-formed arguments during the turn starts the count again (upstream resets it there). */
export function noteMemoryCalls(agent: Agent, turnMessages: readonly AgentMessage[]): void {
  for (const m of turnMessages)
    for (const call of m.role === 'assistant' ? (m.tool_calls ?? []) : [])
      if (call.function.name === MEMORY_TOOL && isObjectJson(call.function.arguments)) agent.turnsSinceMemory = 0
}

function isObjectJson(text: string): boolean {
  try {
    const v: unknown = text.trim() ? JSON.parse(text) : {}
    return !!v && typeof v === 'object' && !Array.isArray(v)
  } catch {
    return false // malformed arguments: upstream refuses the call before it counts as a memory call
  }
}

/** The review, on a copy of the conversation; never throws (a failed review is logged and forgotten). */
export async function runMemoryReview(agent: Agent, snapshot: AgentMessage[], signal: AbortSignal): Promise<void> {
  const acct = new TurnAccounting()
  const ctx: TurnContext = {
    // The Memory page's activity feed lists the review's writes under this turn id, apart from the user's turns.
    turnId: `memory-review-${Date.now().toString(36)}`,
    signal,
    acct,
    emit: () => undefined,
    memoryContext: '',
    userMessage: null,
    watchdogPaused: false,
    compressionDisabled: true,
    lastUsage: null
  }
  const system = agent.systemPromptText()
  const messages: AgentMessage[] = [...snapshot, { role: 'user', content: MEMORY_REVIEW_PROMPT }]
  try {
    for (let i = 0; i < REVIEW_MAX_CALLS && !signal.aborted; i++) {
      const req = chatRequest(agent, system, messages)
      const response = await callModel(
        {
          client: agent.getClient(),
          runtime: agent.runtime,
          store: agent.store,
          sessionId: agent.sessionId,
          touch: () => undefined,
          stream: false,
          // no rows and no usage on the session: upstream's review agent has no session store at all
          counted: false
        },
        req,
        ctx
      )
      messages.push(assistantMessage(response))
      if (!response.toolCalls.length) return
      for (const call of response.toolCalls) {
        const result =
          call.name === MEMORY_TOOL && call.cutFrom === undefined && call.incomplete === undefined
            ? await executeToolCall(agent.tools, call, {
                profile: agent.profile,
                sessionId: agent.sessionId,
                turnId: ctx.turnId,
                gatewaySessionKey: agent.gatewaySessionKey,
                signal
              })
            : {
                content: JSON.stringify({
                  error: `tool '${call.name}' is not available in the memory review: only the memory tool runs here`
                })
              }
        messages.push({ role: 'tool', content: result.content, tool_call_id: call.id, name: call.name })
      }
    }
  } catch (err) {
    if (!signal.aborted)
      agent.log?.warn('agent', `memory review on session ${agent.sessionId} failed: ${errorMessage(err)}`)
  }
}
