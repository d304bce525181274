/**
 * Spawning new children: inline (the tool call waits) or as one background unit that reports back
 * through the durable registry and a delivered notice.
 */
import { randomUUID } from 'node:crypto'
import {
  buildChild,
  buildFailureResult,
  createChildSession,
  newChildSessionId,
  newSubagentId,
  runChild,
  type ChildAgentHandle,
  type ChildSpec
} from './children'
import { deliverCompletion } from './completion'
import type { DelegateDeps } from './deps'
import { finalizeChildResults } from './finalize'
import type { ChildManifestEntry, ChildResult, CompletionEvent, DelegationParent } from './types'
import { errorMessage } from '@shared/contract/errors'

export interface TaskSpec {
  goal: string
  context?: string | null
  toolsets?: string[] | null
  role?: 'leaf' | 'orchestrator'
}

export interface CallInfo {
  sessionKey?: string
  uiSessionId?: string
  signal?: AbortSignal
}

interface Prepared {
  spec: ChildSpec
  child: ChildAgentHandle | null
  error?: string
}

export const newDelegationId = () => `deleg_${randomUUID().replace(/-/g, '').slice(0, 8)}`

const runText = (t: TaskSpec) => (t.context && t.context.trim() ? `${t.goal}\n\nContext: ${t.context.trim()}` : t.goal)

/** Create each child's session row and agent. Build failures are kept and reported as error results. */
export async function prepareChildren(
  deps: DelegateDeps,
  parent: DelegationParent,
  tasks: TaskSpec[],
  maxIterations: number
): Promise<Prepared[]> {
  const cfg = deps.config()
  const out: Prepared[] = []
  for (const [i, task] of tasks.entries()) {
    // Orchestrators may delegate further only while the depth budget allows it.
    const role = task.role === 'orchestrator' && parent.depth + 1 < cfg.maxSpawnDepth ? 'orchestrator' : 'leaf'
    const spec: ChildSpec = {
      taskIndex: i,
      subagentId: newSubagentId(i),
      sessionId: '',
      goal: runText(task),
      context: task.context ?? null,
      toolsets: task.toolsets ?? null,
      role,
      model: null,
      maxIterations,
      depth: parent.depth + 1,
      parentSessionId: parent.sessionId
    }
    spec.sessionId = newChildSessionId()
    // Built before its row is written, so the row records the child's own settings (a failed build: the spec's).
    const built = await buildChild(deps.buildChild, spec)
    const settings = ('error' in built ? null : built.modelConfig?.()) ?? { max_iterations: maxIterations }
    try {
      const model = 'error' in built ? null : (built.model ?? null)
      await createChildSession(deps.store, parent, spec.sessionId, task.goal, settings, model)
    } catch (err) {
      if (!('error' in built)) await Promise.resolve(built.close?.()).catch(() => undefined)
      out.push({ spec, child: null, error: `could not create the child session: ${errorMessage(err)}` })
      continue
    }
    out.push('error' in built ? { spec, child: null, error: built.error } : { spec, child: built })
  }
  return out
}

function runAll(
  deps: DelegateDeps,
  parent: DelegationParent,
  prepared: Prepared[],
  delegationId: string | null,
  signal?: AbortSignal
): Promise<ChildResult[]> {
  return Promise.all(
    prepared.map((p) =>
      p.child
        ? runChild(p.child, p.spec, deps.live, {
            delegationId,
            ownerSessionId: parent.sessionId,
            profile: deps.profile,
            signal
          })
        : Promise.resolve(buildFailureResult(p.spec, p.error ?? 'unknown error'))
    )
  )
}

const finished = (prepared: Prepared[], tasks: TaskSpec[]) =>
  prepared.map((p) => ({
    taskIndex: p.spec.taskIndex,
    goal: tasks[p.spec.taskIndex]?.goal ?? p.spec.goal,
    childSessionId: p.child?.sessionId || p.spec.sessionId
  }))

export async function runInline(
  deps: DelegateDeps,
  parent: DelegationParent,
  tasks: TaskSpec[],
  prepared: Prepared[],
  call: CallInfo
) {
  const started = Date.now()
  const results = await runAll(deps, parent, prepared, null, call.signal)
  await finalizeChildResults(deps.store, parent, results, finished(prepared, tasks), deps.log)
  return { results, total_duration_seconds: Math.round((Date.now() - started) / 10) / 100 }
}

export function manifestOf(prepared: Prepared[], tasks: TaskSpec[]): ChildManifestEntry[] {
  return prepared.map((p) => ({
    subagent_id: p.spec.subagentId,
    session_id: p.child?.sessionId || p.spec.sessionId || '',
    model: p.spec.model ?? null,
    goal: (tasks[p.spec.taskIndex]?.goal ?? '').slice(0, 200)
  }))
}

function unitUsage(results: ChildResult[]) {
  const priced = results.filter((r) => typeof r._child_cost_usd === 'number')
  return {
    cost_usd: priced.length === 0 ? null : priced.reduce((a, r) => a + (r._child_cost_usd as number), 0),
    unpriced_children: results.length - priced.length,
    tokens: {
      input: results.reduce((a, r) => a + (r.tokens?.input ?? 0), 0),
      output: results.reduce((a, r) => a + (r.tokens?.output ?? 0), 0)
    },
    api_calls: results.reduce((a, r) => a + (r.api_calls ?? 0), 0)
  }
}

const batchStatus = (results: ChildResult[]) =>
  results.some((r) => r.status === 'completed' || r.status === 'success') ? 'completed' : 'error'

/**
 * A dispatch that could not be recorded runs nothing: each prepared child is closed (its memory providers and tool
 * state) and its session row, created for it and still empty, is removed. Failures here are logged, not thrown: the
 * caller reports the dispatch's own error.
 */
async function discardPrepared(deps: DelegateDeps, prepared: Prepared[]): Promise<void> {
  for (const p of prepared) {
    try {
      await p.child?.close?.()
    } catch (err) {
      deps.log?.('warn', `closing undispatched child ${p.spec.subagentId} failed: ${errorMessage(err)}`)
    }
    if (!p.spec.sessionId) continue
    try {
      await deps.store.deleteSession(p.spec.sessionId)
    } catch (err) {
      deps.log?.('warn', `removing undispatched child session ${p.spec.sessionId} failed: ${errorMessage(err)}`)
    }
  }
}

/** Persist the dispatch, start the unit, return the handle payload. The caller has reserved pool capacity. */
export async function dispatchBackground(
  deps: DelegateDeps,
  parent: DelegationParent,
  tasks: TaskSpec[],
  prepared: Prepared[],
  delegationId: string,
  call: CallInfo
) {
  const isBatch = tasks.length > 1
  const dispatchedAt = Date.now() / 1000
  const sessionKey = call.sessionKey || parent.sessionId || ''
  const task = isBatch
    ? { goals: tasks.map((t) => t.goal), is_batch: true }
    : {
        goal: tasks[0].goal,
        context: tasks[0].context ?? null,
        toolsets: tasks[0].toolsets ?? null,
        role: prepared[0].spec.role,
        is_batch: false
      }
  const manifest = manifestOf(prepared, tasks)
  try {
    await deps.registry.persistDispatch({
      delegationId,
      originSession: sessionKey,
      originUiSessionId: call.uiSessionId ?? '',
      parentSessionId: parent.sessionId,
      dispatchedAt,
      task,
      // In the dispatch's own write: between two writes (or for good, were the second to fail) the row would have
      // no manifest, and a row without one is listed as another dispatcher's (foreign.ts).
      children: manifest
    })
  } catch (err) {
    await discardPrepared(deps, prepared)
    throw err
  }
  const dispatchTurnId = parent.currentTurnId ?? null

  const unit = (async () => {
    const results = await runAll(deps, parent, prepared, delegationId)
    // Usage rollup for the retained row; read before finalize strips the private `_child_cost_usd`.
    const usage = unitUsage(results)
    await finalizeChildResults(deps.store, parent, results, finished(prepared, tasks), deps.log, dispatchTurnId)
    const completedAt = Date.now() / 1000
    const status = isBatch ? batchStatus(results) : results[0].status
    const event: CompletionEvent = {
      type: 'async_delegation',
      delegation_id: delegationId,
      session_key: sessionKey,
      origin_ui_session_id: call.uiSessionId ?? '',
      origin_session_id: '',
      parent_session_id: parent.sessionId,
      goal: tasks[0].goal,
      context: tasks[0].context ?? null,
      toolsets: tasks[0].toolsets ?? null,
      role: prepared[0].spec.role,
      model: results[0]?.model ?? null,
      status,
      error: status === 'completed' ? null : (results.find((r) => r.error)?.error ?? null),
      duration_seconds: Math.round((completedAt - dispatchedAt) * 100) / 100,
      dispatched_at: dispatchedAt,
      completed_at: completedAt,
      exit_reason: isBatch ? status : (results[0].exit_reason ?? status),
      ...(isBatch
        ? {
            goals: tasks.map((t) => t.goal),
            is_batch: true,
            results,
            total_duration_seconds: Math.round((completedAt - dispatchedAt) * 100) / 100
          }
        : { summary: results[0].summary, api_calls: results[0].api_calls })
    }
    await deps.registry.persistCompletion(event, {
      status,
      summary: isBatch ? null : results[0].summary,
      results,
      usage
    })
    // The children are done: their slot is free now, while the notice may still wait for the parent's turn to end.
    deps.pool.release(delegationId)
    await deliverCompletion(deps, event, results)
  })().catch((err) => deps.log?.('error', `background delegation ${delegationId} failed: ${errorMessage(err)}`))
  deps.pool.track(delegationId, unit)
  deps.onUpdate?.({ profile: deps.profile, delegationId, parentSessionId: parent.sessionId })

  return {
    status: 'dispatched',
    mode: 'background',
    count: tasks.length,
    delegation_id: delegationId,
    goals: tasks.map((t) => t.goal),
    children: manifest,
    note: 'The subagent(s) are running in the background. Their result will re-enter this chat as a new message when they finish; do not wait or poll for it.'
  }
}
