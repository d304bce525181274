/**
 * Restart recovery: rows left `running`/`finalizing` by a process that no longer exists become `unknown`
 * (their result is lost, but the parent still hears about it), then the retained registry is validated.
 */
import { toJson, type RegistryCtx } from './context'
import { ownerIsGone } from './process-info'
import { rehydrateRetainedChildren } from './retained'

const ABANDONED_ERROR = 'Delegation owner exited before recording a terminal result; outcome unknown.'

export async function recoverAbandonedDelegations(ctx: RegistryCtx): Promise<number> {
  const rows = ctx.repo.listActive()
  let recovered = 0
  for (const row of rows) {
    if (!ownerIsGone(row.ownerPid, row.ownerStartedAt)) continue
    const now = ctx.now()
    let task: Record<string, unknown> = {}
    try {
      const t: unknown = row.taskJson ? JSON.parse(row.taskJson) : {}
      if (t && typeof t === 'object' && !Array.isArray(t)) task = t as Record<string, unknown>
    } catch {
      // malformed task_json: the event simply carries no goal
    }
    const event = {
      type: 'async_delegation',
      delegation_id: row.delegationId,
      session_key: row.originSession,
      origin_ui_session_id: row.originUiSessionId,
      origin_session_id: row.originSessionId,
      parent_session_id: row.parentSessionId,
      goal: task.goal ?? null,
      status: 'unknown',
      summary: null,
      error: ABANDONED_ERROR,
      dispatched_at: row.dispatchedAt,
      completed_at: now,
      exit_reason: 'owner_exited'
    }
    const changed = await ctx.write((tx) =>
      ctx.repo.markAbandoned(
        tx,
        row.delegationId,
        toJson(event),
        toJson({ status: 'unknown', error: ABANDONED_ERROR }),
        now
      )
    )
    recovered += changed
  }
  if (recovered > 0) ctx.log('warn', `Recovered ${recovered} abandoned async delegation(s) as state=unknown`)
  await rehydrateRetainedChildren(ctx)
  return recovered
}
