/**
 * Building and running child agents. The Agent itself is injected through `ChildFactory` so the host can
 * wire the real Agent (and tests the real Agent on a scripted provider) without delegation importing
 * provider plumbing. A child never throws out of here: every failure becomes an `error` result.
 */
import { randomUUID } from 'node:crypto'
import type { ConversationMessage } from '../store'
import type { LiveSubagentRegistry, SteerableAgent } from './live-registry'
import type { ChildResult, DelegationParent, DelegationStore } from './types'
import { errorMessage } from '@shared/contract/errors'

export interface ChildSpec {
  taskIndex: number
  subagentId: string
  /** The child's own state.db session (already created for spawns; the retained one for follow-ups). */
  sessionId: string
  goal: string
  context?: string | null
  toolsets?: string[] | null
  role: 'leaf' | 'orchestrator'
  model?: string | null
  maxIterations: number
  depth: number
  parentSessionId: string | null
  /** Set on follow-up: the stored transcript (system rows removed) the child resumes from. */
  resumeSessionId?: string
  history?: ConversationMessage[]
}

export interface ChildRunOutcome {
  status: 'completed' | 'error' | 'interrupted' | string
  summary: string | null
  error?: string | null
  apiCalls?: number
  tokens?: { input: number; output: number }
  /** null = unpriced. */
  costUsd?: number | null
  model?: string | null
  exitReason?: string | null
}

export interface ChildAgentHandle extends SteerableAgent {
  sessionId: string
  run(goal: string, opts: { signal?: AbortSignal; onText?: (text: string) => void }): Promise<ChildRunOutcome>
  /** The settings its session row records as `model_config` (the agent's, in upstream's keys). */
  modelConfig?(): Record<string, unknown>
  /** The model it runs with, recorded on its session row at creation as upstream's child records its own. */
  readonly model?: string | null
  /** Closes a child that will never run (its dispatch failed); a run closes its own child when it ends. */
  close?(): void | Promise<void>
}

export type ChildFactory = (spec: ChildSpec) => Promise<ChildAgentHandle> | ChildAgentHandle

/** Leaf children may not delegate, ask the user, write memory, message out or schedule (upstream). */
export const LEAF_DENIED_TOOLS = ['delegate_task', 'clarify', 'memory', 'send_message', 'cronjob'] as const

export const newSubagentId = (taskIndex: number) => `sa-${taskIndex}-${randomUUID().replace(/-/g, '').slice(0, 8)}`

export function newChildSessionId(): string {
  const d = new Date()
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}_${randomUUID().replace(/-/g, '').slice(0, 8)}`
}

/**
 * Create the child's session row: `source='subagent'` (the platform upstream's delegate tool gives its child; rows an
 * earlier Caduceus wrote say `delegate`, and every reader takes both), parent link and `model_config` as upstream's child has it — the
 * child's own settings (`settings`) and the `_delegate_from` marker (§1.7).
 */
export async function createChildSession(
  store: DelegationStore,
  parent: DelegationParent,
  id: string,
  goal: string,
  settings: Record<string, unknown>,
  model: string | null = null
): Promise<string> {
  await store.createSession(id, 'subagent', {
    model,
    parentSessionId: parent.sessionId ?? null,
    modelConfig: { ...settings, _delegate_from: parent.sessionId ?? '' },
    title: null,
    displayName: goal.slice(0, 80)
  })
  return id
}

/** Run one child to a result, registered as live while it runs so follow-ups can steer it. */
export async function runChild(
  child: ChildAgentHandle,
  spec: ChildSpec,
  live: LiveSubagentRegistry,
  extra: {
    delegationId?: string | null
    ownerSessionId?: string | null
    profile: string
    signal?: AbortSignal
    onText?: (text: string) => void
  }
): Promise<ChildResult> {
  const started = Date.now()
  live.register({
    subagentId: spec.subagentId,
    agent: child,
    ownerSessionId: extra.ownerSessionId ?? null,
    profile: extra.profile,
    delegationId: extra.delegationId ?? null,
    parentSessionId: spec.parentSessionId,
    goal: spec.goal,
    model: spec.model ?? null
  })
  let outcome: ChildRunOutcome
  try {
    outcome = await child.run(spec.goal, { signal: extra.signal, onText: extra.onText })
  } catch (err) {
    outcome = { status: 'error', summary: null, error: errorMessage(err), exitReason: 'exception' }
  } finally {
    live.unregister(spec.subagentId, child)
  }
  const status = typeof outcome?.status === 'string' && outcome.status ? outcome.status : 'error'
  return {
    task_index: spec.taskIndex,
    status,
    summary: typeof outcome?.summary === 'string' ? outcome.summary : null,
    error: outcome?.error ?? null,
    api_calls: Number.isFinite(outcome?.apiCalls) ? (outcome.apiCalls as number) : 0,
    duration_seconds: Math.round((Date.now() - started) / 10) / 100,
    model: outcome?.model ?? spec.model ?? null,
    exit_reason: outcome?.exitReason ?? status,
    tokens: { input: outcome?.tokens?.input ?? 0, output: outcome?.tokens?.output ?? 0 },
    child_session_id: child.sessionId || spec.sessionId,
    subagent_id: spec.subagentId,
    _child_role: spec.role,
    _child_cost_usd: typeof outcome?.costUsd === 'number' ? outcome.costUsd : null
  }
}

/** Build a child; a factory failure becomes an error result instead of an exception. */
export async function buildChild(
  factory: ChildFactory,
  spec: ChildSpec
): Promise<ChildAgentHandle | { error: string }> {
  try {
    const child = await factory(spec)
    if (!child || typeof child.run !== 'function') return { error: 'child factory returned no agent' }
    return child
  } catch (err) {
    return { error: errorMessage(err) }
  }
}

export function buildFailureResult(spec: ChildSpec, error: string): ChildResult {
  return {
    task_index: spec.taskIndex,
    status: 'error',
    summary: null,
    error: `Failed to build subagent: ${error}`,
    api_calls: 0,
    duration_seconds: 0,
    model: spec.model ?? null,
    exit_reason: 'build_failed',
    tokens: { input: 0, output: 0 },
    child_session_id: spec.sessionId,
    subagent_id: spec.subagentId,
    _child_role: spec.role,
    // nothing ran, so nothing was spent: a priced zero, not an unpriced gap
    _child_cost_usd: 0
  }
}
