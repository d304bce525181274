/**
 * Delegation rows Caduceus did not dispatch. Upstream's `tools/async_delegation.py` records an async delegation in
 * the same `async_delegations` table but never writes a child manifest (`children_json` / `child_session_id`, the
 * retained-subagent columns its table does not even have): what the row still says is its task (`task_json`: goal,
 * goals, model, is_batch), its completion event and result (`event_json` / `result_json`: status, summary, error,
 * model, a batch's per-task results). Those rows are listed from that, one entry per goal.
 *
 * The child session is linked only when exactly one delegate child of the parent (`parent_session_id` and
 * `model_config._delegate_from`, as upstream's delegate tool creates it) started in the delegation's window with
 * the goal as its first user message (the child's run starts with the goal as its user message). Two candidates
 * (the same goal twice at once) link none rather than a guess.
 */
import type { SessionStore } from '../store'
import { parseJson } from './registry/context'
import type { DelegationDb } from './types'

/** The child may be built (and its session row written) before the dispatch row: how much earlier it may start. */
const BUILT_BEFORE_DISPATCH_S = 60
/** A session row written a moment after the completion stamp (clock granularity, a slow commit). */
const AFTER_COMPLETION_S = 5

interface ForeignChild {
  childId: string
  childSessionId: string
  goal: string
  model: string | null
  summary: string | null
  error: string | null
}

/** A delegation as the repository lists it (store/delegation-repo.ts declares the record once). */
type Listed = ReturnType<ReturnType<SessionStore['delegationRepo']>['listForSubagents']>[number]
type ForeignRow = Pick<
  Listed,
  'delegationId' | 'parentSessionId' | 'dispatchedAt' | 'completedAt' | 'taskJson' | 'eventJson' | 'resultJson'
>

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null)

/** No manifest at all: the row was written by a dispatcher that keeps none (upstream). */
export function isForeignRow(r: Pick<Listed, 'childrenJson' | 'childSessionId'>): boolean {
  return r.childrenJson === null && r.childSessionId === null
}

function linkChild(
  store: DelegationDb,
  r: ForeignRow,
  goal: string
): { sessionId: string; model: string | null } | null {
  if (!r.parentSessionId || !goal) return null
  const to = r.completedAt === null ? null : r.completedAt + AFTER_COMPLETION_S
  const found = store
    .delegationRepo()
    .delegateChildrenByGoal(r.parentSessionId, goal, r.dispatchedAt - BUILT_BEFORE_DISPATCH_S, to)
  return found.length === 1 ? { sessionId: found[0]!.sessionId, model: found[0]!.model } : null
}

/** One entry per goal of a row without a manifest (a batch lists each of its goals). */
export function foreignChildren(store: DelegationDb, r: ForeignRow): ForeignChild[] {
  const task = obj(parseJson<unknown>(r.taskJson, null))
  const event = obj(parseJson<unknown>(r.eventJson, null))
  const result = obj(parseJson<unknown>(r.resultJson, null))
  const rowModel = text(event.model) ?? text(task.model)
  const goals = Array.isArray(task.goals) ? task.goals.filter((g): g is string => typeof g === 'string') : []
  if (task.is_batch === true && goals.length > 0) {
    const results = Array.isArray(result.results) ? result.results.map(obj) : []
    return goals.map((goal, i) => {
      const res = results.find((x) => x.task_index === i) ?? results[i] ?? {}
      const link = linkChild(store, r, goal)
      return {
        childId: link?.sessionId ?? `${r.delegationId}#${i + 1}`,
        childSessionId: link?.sessionId ?? '',
        goal,
        model: text(res.model) ?? rowModel ?? link?.model ?? null,
        summary: text(res.summary),
        error: text(res.error) ?? (results.length ? null : (text(event.error) ?? text(result.error)))
      }
    })
  }
  const goal = text(task.goal) ?? text(event.goal) ?? ''
  const link = linkChild(store, r, goal)
  return [
    {
      childId: link?.sessionId ?? r.delegationId,
      childSessionId: link?.sessionId ?? '',
      goal,
      model: rowModel ?? link?.model ?? null,
      summary: text(result.summary) ?? text(event.summary),
      error: text(result.error) ?? text(event.error)
    }
  ]
}
