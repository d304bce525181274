/**
 * `delegate_task(follow_up=…)` (hermes-spec §2.7): a message to an existing child, not a spawn, so it is
 * budget-exempt. A running child is steered; a retained completed child is rebuilt on its OWN session and
 * runs the message as its next user turn (never spliced into the parent's history).
 */
import { checkFollowUpAuthority } from './authority'
import { buildChild, runChild, type ChildSpec } from './children'
import type { DelegateDeps } from './deps'
import { finalizeChildResults } from './finalize'
import type { DelegationParent } from './types'
import { errorMessage } from '@shared/contract/errors'
import { readRetrying } from '../store'

const FOLLOW_UP_RECEIPT =
  "Message queued for the running subagent; it folds in at the child's next iteration boundary (the current tool call is never cut)."
const FOLLOW_UP_NOTE =
  "Follow-up ran as the retained child's next user turn on its own persisted session (budget-exempt: no spawn depth or concurrency consumed)."
const FOLLOW_UP_NEEDS_GOAL = "follow_up requires 'goal' (the message to deliver to the child)."
const followUpNotFound = (id: string) =>
  `follow_up target '${id}' is not a running subagent or a retained completed child. It may have been tombstoned (removed from follow-up messaging), pruned by delegation.retained_ttl_hours, or never retained. Its transcript, if any, is still in state.db.`
export const FOLLOW_UP_NO_SESSION = "Retained record has no child session id; cannot resume the child's transcript."
export const FOLLOW_UP_NO_DB =
  'follow_up on a completed child requires a session database (parent agent has none in this runtime).'

export type ToolPayload = Record<string, unknown>
const err = (error: string): ToolPayload => ({ error })

export function followUpText(goal: unknown, context: unknown): string {
  const g = typeof goal === 'string' ? goal.trim() : ''
  const c = typeof context === 'string' ? context.trim() : ''
  if (!c) return g
  return g ? `${g}\n\nContext: ${c}` : c
}

export async function handleFollowUp(
  deps: DelegateDeps,
  target: string,
  goal: unknown,
  context: unknown,
  parent: DelegationParent,
  signal?: AbortSignal,
  onText?: (text: string) => void
): Promise<ToolPayload> {
  const text = followUpText(goal, context)
  if (!text) return err(FOLLOW_UP_NEEDS_GOAL)

  // Only a child of this profile: the registry is host-wide, and the retained path below checks the profile too.
  const live = deps.live.resolve(target, deps.profile)
  if (live && deps.live.steer(live.subagentId, text)) {
    return { status: 'queued', mode: 'follow_up', child_id: live.subagentId, receipt: FOLLOW_UP_RECEIPT }
  }

  const entry = deps.registry.findRetainedChild(target)
  if (!entry) return err(followUpNotFound(target))
  const denied = checkFollowUpAuthority(entry, typeof parent.sessionId === 'string' ? parent.sessionId : null, {
    currentProfile: deps.registry.ctx.currentProfile(),
    lineageRoot: (sid) => deps.store.getLineageRoot(sid)
  })
  if (denied) return err(denied)
  if (!entry.childSessionId) return err(FOLLOW_UP_NO_SESSION)
  const store = deps.store
  if (!store || typeof store.getMessagesAsConversation !== 'function') return err(FOLLOW_UP_NO_DB)

  // Reads wait out another program's commit (rollback journal): a lock is no reason to resume the wrong segment.
  let resumeSid = entry.childSessionId
  try {
    resumeSid = (await readRetrying(() => store.resolveResumeSessionId(entry.childSessionId))) || entry.childSessionId
  } catch {
    // still locked or unreadable after the retries: the segment the registry recorded
    resumeSid = entry.childSessionId
  }
  let history
  try {
    history = await readRetrying(() => store.getMessagesAsConversation(resumeSid, { repairAlternation: true }))
  } catch (e) {
    return err(`Could not load the retained child's transcript (${resumeSid}): ${errorMessage(e)}`)
  }
  if (!Array.isArray(history) || history.length === 0)
    return err(`Retained child transcript (${resumeSid}) is empty; nothing to resume.`)
  history = history.filter((m) => m.role !== 'system')

  const spec: ChildSpec = {
    taskIndex: 0,
    subagentId: entry.childId || resumeSid,
    sessionId: resumeSid,
    goal: text,
    role: 'leaf',
    toolsets: null,
    model: entry.model,
    maxIterations: deps.config().maxIterations,
    depth: parent.depth + 1,
    parentSessionId: entry.parentSessionId,
    resumeSessionId: resumeSid,
    history
  }
  const started = Date.now()
  const built = await buildChild(deps.buildChild, spec)
  if ('error' in built) return err(`Could not rebuild the retained child: ${built.error}`)
  const result = await runChild(built, spec, deps.live, {
    delegationId: entry.delegationId,
    ownerSessionId: parent.sessionId,
    profile: deps.profile,
    signal,
    onText
  })
  await finalizeChildResults(
    deps.store,
    parent,
    [result],
    [{ taskIndex: 0, goal: text, childSessionId: built.sessionId || resumeSid }],
    deps.log
  )
  deps.onUpdate?.({ profile: deps.profile, delegationId: entry.delegationId, parentSessionId: entry.parentSessionId })
  return {
    mode: 'follow_up',
    child_id: entry.childId || entry.childSessionId,
    child_session_id: built.sessionId || resumeSid,
    delegation_id: entry.delegationId,
    results: [result],
    total_duration_seconds: Math.round((Date.now() - started) / 10) / 100,
    note: FOLLOW_UP_NOTE
  }
}
