/**
 * The `subagents.followUp` request: the UI acts for the spawning lineage (the child's recorded parent
 * unless a requester is given) and goes through the same follow-up path and authority as the model.
 */
import { randomUUID } from 'node:crypto'
import { CaduceusError, type FollowUpInput, type FollowUpResult } from '@shared/contract'
import type { DelegateDeps } from './deps'
import { handleFollowUp } from './follow-up'
import type { DelegationParent } from './types'

export async function followUpRequest(
  deps: DelegateDeps,
  input: Pick<FollowUpInput, 'childId' | 'text' | 'requesterSessionId'>,
  onText?: (text: string) => void
): Promise<FollowUpResult> {
  const childId = input.childId.trim()
  const entry = deps.registry.findRetainedChild(childId)
  const live = deps.live.resolve(childId, deps.profile)
  const requester = input.requesterSessionId?.trim() || entry?.parentSessionId || live?.parentSessionId || null
  // A UI follow-up is its own turn of the spawning lineage: give it an id so its ledger row is attributable.
  const parent: DelegationParent = {
    sessionId: requester,
    currentTurnId: `ui_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
    depth: 0,
    sessionEstimatedCostUsd: 0,
    sessionCostSource: 'none',
    sessionCostStatus: 'unknown'
  }
  const out = await handleFollowUp(deps, childId, input.text, null, parent, undefined, onText)
  if (typeof out.error === 'string') {
    const code = out.error.startsWith('follow_up rejected')
      ? 'refused'
      : out.error.includes('is not a running subagent')
        ? 'not_found'
        : 'conflict'
    throw new CaduceusError(code, out.error, code === 'refused' ? 'requesterSessionId' : 'childId')
  }
  if (out.status === 'queued') {
    return {
      mode: 'queued',
      childId: String(out.child_id),
      childSessionId: live?.agent.sessionId ?? '',
      summary: null,
      receipt: String(out.receipt)
    }
  }
  const result = (out.results as Array<{ summary?: string | null }> | undefined)?.[0]
  return {
    mode: 'follow_up',
    childId: String(out.child_id),
    childSessionId: String(out.child_session_id),
    summary: result?.summary ?? null
  }
}
