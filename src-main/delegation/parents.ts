/**
 * The calling agent's delegation state (depth and in-memory subagent cost rollup), keyed by the agent
 * object the tool context carries. Kept here so the Agent class needs no delegation fields.
 */
import type { ToolContext } from '../agent'
import type { DelegationMemoryHook, DelegationParent } from './types'

const states = new WeakMap<object, DelegationParent>()

function fresh(sessionId: string | null, depth = 0): DelegationParent {
  return {
    sessionId,
    currentTurnId: null,
    depth,
    subagentId: null,
    sessionEstimatedCostUsd: 0,
    sessionCostSource: 'none',
    sessionCostStatus: 'unknown',
    memory: null
  }
}

/** Record that `agent` is a subagent at `depth` (the child factory calls this), so its own delegations respect the budget. */
export function markSubagent(
  agent: object,
  depth: number,
  subagentId: string | null = null,
  memory: DelegationMemoryHook | null = null
): void {
  const s = states.get(agent) ?? fresh(null, depth)
  s.depth = depth
  s.subagentId = subagentId
  s.memory = memory ?? s.memory ?? null
  states.set(agent, s)
}

/** The delegation state of an agent (created at depth 0 on first use). */
export function parentStateOf(agent: object): DelegationParent {
  let s = states.get(agent)
  if (!s) {
    s = fresh(null)
    states.set(agent, s)
  }
  return s
}

/** Default `parent` resolver for the tool: no session in the context means no parent agent. */
export function parentFromToolContext(ctx: ToolContext): DelegationParent | null {
  if (!ctx || typeof ctx.sessionId !== 'string' || !ctx.sessionId) return null
  const s = ctx.agent ? parentStateOf(ctx.agent) : fresh(ctx.sessionId)
  s.sessionId = ctx.sessionId
  s.currentTurnId = ctx.turnId || null
  // The Agent carries its memory manager (structurally: delegation does not import agent internals).
  const memory = (
    ctx.agent as
      | { memory?: { onDelegation?(task: string, result: string, o?: { childSessionId?: string }): unknown } | null }
      | undefined
  )?.memory
  if (!s.memory && memory && typeof memory.onDelegation === 'function') {
    // Awaited by nobody on purpose: the manager logs and swallows provider failures itself.
    s.memory = {
      onDelegation: (task, result, opts) =>
        void Promise.resolve(memory.onDelegation!(task, result, opts)).catch(() => undefined)
    }
  }
  return s
}
