/**
 * After children finish: roll their cost into the parent (in memory, §1.9), write one ledger row per child
 * (§2.6) and tell the parent's memory. Failures in the ledger or memory never fail the delegation.
 */
import { recordChildUsageAttribution, type ChildUsage } from '../costs'
import type { ChildResult, DelegationDb, DelegationParent } from './types'
import { errorMessage } from '@shared/contract/errors'
import type { LogFn } from '@shared/contract/log'

export interface FinishedChild {
  taskIndex: number
  goal: string
  childSessionId: string
}

export async function finalizeChildResults(
  store: DelegationDb,
  parent: DelegationParent,
  results: ChildResult[],
  children: FinishedChild[],
  log: LogFn = () => {},
  /** The turn that dispatched the children (a background unit finishes after later turns have begun). */
  parentTurnId?: string | null
): Promise<{ childrenCostTotal: number; unpriced: number }> {
  let total = 0
  let unpriced = 0
  const records: Array<{ childSessionId: string; usage: ChildUsage }> = []
  for (const r of results) {
    const cost = r._child_cost_usd
    delete r._child_role
    delete r._child_cost_usd
    if (typeof cost === 'number' && Number.isFinite(cost)) total += cost
    else unpriced++
    const child = children.find((c) => c.taskIndex === r.task_index)
    const childSessionId = child?.childSessionId ?? r.child_session_id ?? ''
    records.push({
      childSessionId,
      usage: {
        cost_usd: typeof cost === 'number' && Number.isFinite(cost) ? cost : null,
        tokens: r.tokens && typeof r.tokens === 'object' ? { ...r.tokens } : {},
        api_calls: r.api_calls ?? 0,
        status: r.status ?? null,
        model: r.model ?? null
      }
    })
  }
  parent.sessionEstimatedCostUsd =
    (Number.isFinite(parent.sessionEstimatedCostUsd) ? parent.sessionEstimatedCostUsd : 0) + total
  if (!parent.sessionCostSource || parent.sessionCostSource === 'none') parent.sessionCostSource = 'subagent'
  if (!parent.sessionCostStatus || parent.sessionCostStatus === 'unknown') parent.sessionCostStatus = 'estimated'

  if (typeof parent.sessionId === 'string' && parent.sessionId && records.length > 0) {
    const aggregate = { session_estimated_cost_usd: parent.sessionEstimatedCostUsd, children_cost_total: total }
    for (const rec of records) {
      try {
        await recordChildUsageAttribution(store, {
          parentSessionId: parent.sessionId,
          parentTurnId: (parentTurnId === undefined ? parent.currentTurnId : parentTurnId) ?? '',
          childSessionId: rec.childSessionId,
          usage: rec.usage,
          aggregate
        })
      } catch (err) {
        log('warn', `child usage ledger write failed: ${errorMessage(err)}`)
      }
    }
  }
  if (parent.memory) {
    for (const r of results) {
      const child = children.find((c) => c.taskIndex === r.task_index)
      try {
        parent.memory.onDelegation(child?.goal ?? '', r.summary ?? r.error ?? '', {
          childSessionId: child?.childSessionId ?? r.child_session_id ?? ''
        })
      } catch (err) {
        log('warn', `memory on_delegation failed: ${errorMessage(err)}`)
      }
    }
  }
  return { childrenCostTotal: total, unpriced }
}
