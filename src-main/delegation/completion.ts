/**
 * Background completion: persist the outcome, then deliver a notice into the origin session as a new
 * `user` message (`display_kind='async_delegation_complete'`). Delivery is claimed first and idempotent
 * per delegation, so a restart re-delivering a pending row never appends twice. Completions never edit
 * past context; they surface as a new turn (invariant 2.9.7).
 */
import type { DelegateDeps, DelegationCompletion } from './deps'
import { newClaimToken } from './registry'
import type { ChildResult, CompletionEvent } from './types'
import { errorMessage } from '@shared/contract/errors'
import { readRetrying } from '../store'

const COMPLETION_DISPLAY_KIND = 'async_delegation_complete'

function completionNotice(event: CompletionEvent, results: ChildResult[]): string {
  const lines = [`[Background delegation ${event.delegation_id} finished: ${event.status}]`]
  const goals = Array.isArray(event.goals) ? (event.goals as string[]) : [String(event.goal ?? '')]
  results.forEach((r, i) => {
    const head = results.length > 1 ? `Task ${i + 1}` : 'Task'
    lines.push(`${head}: ${goals[r.task_index] ?? goals[i] ?? ''}`.trimEnd())
    lines.push(r.summary ? `Result: ${r.summary}` : `Error: ${r.error ?? 'no summary returned'}`)
  })
  if (event.error && results.length === 0) lines.push(`Error: ${String(event.error)}`)
  return lines.join('\n')
}

/** Already delivered into this session? The claim serializes deliverers; this catches a crash between append and ack. */
function existingNotice(deps: DelegateDeps, sessionId: string, delegationId: string): number | null {
  return deps.store.delegationRepo().findNotice(sessionId, COMPLETION_DISPLAY_KIND, delegationId)
}

/** Deliver one terminal event. Returns null when another consumer holds the claim or nothing was appended. */
export async function deliverCompletion(
  deps: DelegateDeps,
  event: CompletionEvent,
  results: ChildResult[]
): Promise<DelegationCompletion | null> {
  const { registry, store } = deps
  const delegationId = event.delegation_id
  const parentSessionId =
    typeof event.parent_session_id === 'string' && event.parent_session_id ? event.parent_session_id : null
  const notice = completionNotice(event, results)
  let claimed = false
  let target: string | null = null
  let messageId: number | null = null
  /** Claims the delivery and appends the notice to the parent's live tip (`tip` when the host resolved it). */
  const save = async (tip: string | null): Promise<number | null> => {
    const claim = newClaimToken('caduceus')
    if (!(await registry.claimCompletionDelivery(delegationId, claim))) return null
    claimed = true
    try {
      if (!parentSessionId) throw new Error('completion has no parent session to deliver into')
      // The parent may have rotated through compression while the child ran: deliver to the live tip. Reads wait out
      // another program's commit (rollback journal): a lock is no reason to deliver into an ended segment.
      let resolved = tip ?? parentSessionId
      if (tip === null)
        try {
          resolved = (await readRetrying(() => store.resolveResumeSessionId(parentSessionId))) || parentSessionId
        } catch {
          // still locked or unreadable after the retries: the parent as recorded
          resolved = parentSessionId
        }
      target = resolved
      // Check the original parent too: a rotation between append and ack must not deliver twice.
      messageId = await readRetrying(
        () =>
          existingNotice(deps, resolved, delegationId) ??
          (resolved !== parentSessionId ? existingNotice(deps, parentSessionId, delegationId) : null)
      )
      if (messageId === null) {
        messageId = await store.appendMessage(resolved, {
          role: 'user',
          content: notice,
          displayKind: COMPLETION_DISPLAY_KIND,
          displayMetadata: { delegation_id: delegationId, delivery_notice: 'completion', status: event.status }
        })
      }
      await registry.completeCompletionDelivery(delegationId, claim)
    } catch (err) {
      deps.log?.('warn', `delivery of ${delegationId} failed: ${errorMessage(err)}`)
      await registry.releaseCompletionDelivery(delegationId, claim).catch(() => null)
      target = null
      messageId = null
    }
    return messageId
  }
  // Claimed only once the parent's running turn is over: its final reply is written first, and the claim is not held
  // (against upstream's deliverers on the same home) for as long as that turn runs. The host saves it holding the
  // parent's conversation, so no turn begins between that moment and the append, and runs the notice's turn.
  if (parentSessionId && deps.saveAndRun)
    await deps
      .saveAndRun(delegationId, parentSessionId, async (tip) => {
        const id = await save(tip)
        return id === null ? null : { messageId: id, text: notice }
      })
      .catch((err: unknown) => deps.log?.('warn', `delivery of ${delegationId} failed: ${errorMessage(err)}`))
  else await save(null)
  if (!claimed) return null
  const completion: DelegationCompletion = {
    profile: deps.profile,
    delegationId,
    parentSessionId,
    deliveredSessionId: target,
    messageId,
    notice,
    event,
    results
  }
  deps.onUpdate?.({ profile: deps.profile, delegationId, parentSessionId })
  if (messageId !== null && deps.onCompletion) {
    try {
      await deps.onCompletion(completion)
    } catch (err) {
      deps.log?.('warn', `onCompletion hook for ${delegationId} failed: ${errorMessage(err)}`)
    }
  }
  return completion
}

/** Startup path: recover abandoned rows, then re-deliver every pending terminal row (oldest first). */
export async function restoreUndeliveredCompletions(deps: DelegateDeps): Promise<number> {
  await deps.registry.recoverAbandonedDelegations()
  let n = 0
  for (const event of deps.registry.listUndeliveredCompletions()) {
    const raw = Array.isArray(event.results) ? (event.results as ChildResult[]) : []
    const results =
      raw.length > 0
        ? raw
        : [
            {
              task_index: 0,
              status: event.status,
              summary: typeof event.summary === 'string' ? event.summary : null,
              error: typeof event.error === 'string' ? event.error : null,
              api_calls: 0,
              duration_seconds: 0
            }
          ]
    if (await deliverCompletion(deps, event, results)) n++
  }
  return n
}
