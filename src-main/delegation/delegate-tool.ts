/**
 * `delegate_task` (hermes-spec §2.7). Order matters: parent check, then follow-up (budget-exempt, so
 * before pause/depth/capacity), then spawn pause, depth limit, task validation, and inline vs background.
 */
import type { ToolContext, ToolDefinition } from '../agent'
import type { DelegateDeps } from './deps'
import { handleFollowUp, type ToolPayload } from './follow-up'
import { dispatchBackground, newDelegationId, prepareChildren, runInline, type CallInfo, type TaskSpec } from './spawn'
import { parentFromToolContext } from './parents'
import type { DelegationParent } from './types'
import { errorMessage } from '@shared/contract/errors'

const NO_PARENT_ERROR = 'delegate_task requires a parent agent context.'
const SPAWN_PAUSED_ERROR =
  'Delegation spawning is paused. Resume it on the Subagents page ("Resume spawning") before retrying; follow-ups to existing subagents still work.'
const depthLimitError = (depth: number, max: number) =>
  `Delegation depth limit reached (depth=${depth}, max_spawn_depth=${max}). Raise delegation.max_spawn_depth in config.yaml if deeper nesting is required (no hard ceiling, but each level multiplies API cost).`
const capacityError = (running: number, batch: boolean) =>
  `Async delegation capacity reached (${running} running). Wait for one to finish (its result will re-enter the chat), or run this task synchronously (background=false). Raise delegation.max_concurrent_children in config.yaml to allow more concurrent background ${batch ? 'units' : 'subagents'}.`
const STATELESS_NOTE =
  'background=true is not available in this session — it cannot receive a detached subagent result after the turn ends (a one-shot runner such as `hermes -z`, a cron job, a Kanban worker, or a stateless HTTP endpoint). The subagent(s) ran SYNCHRONOUSLY and the result is included above.'
export const MAX_BATCH = 10

const DELEGATE_TASK_PARAMETERS = {
  type: 'object',
  properties: {
    goal: { type: 'string', description: 'What the subagent should accomplish (single task).' },
    context: { type: 'string', description: 'Background the subagent needs: files, constraints, what was tried.' },
    tasks: {
      type: 'array',
      description: 'Batch mode: several independent tasks run in parallel, each {goal, context?, toolsets?}.',
      items: {
        type: 'object',
        properties: {
          goal: { type: 'string' },
          context: { type: 'string' },
          toolsets: { type: 'array', items: { type: 'string' } },
          role: { type: 'string', enum: ['leaf', 'orchestrator'] }
        },
        required: ['goal']
      }
    },
    toolsets: {
      type: 'array',
      items: { type: 'string' },
      description: "Toolsets to enable for the subagent (default: the parent's)."
    },
    role: { type: 'string', enum: ['leaf', 'orchestrator'], description: 'leaf (default) cannot delegate further.' },
    background: {
      type: 'boolean',
      description:
        'Deprecated: top-level delegations always run in the background when the session can receive the result.'
    },
    follow_up: {
      type: 'string',
      description:
        'Follow-up mode: the id of an existing subagent to message instead of spawning a new one (a running child is steered; a retained completed child resumes its own transcript with `goal` as its next message).'
    }
  },
  required: []
} as const

/** Byte-stable per capability (it feeds the agent-cache signature): the blocking wording replaces the background one. */
function delegateToolDescription(asyncSupported: boolean): string {
  const base = 'Delegate work to subagents that run with their own context and tools, then report back a summary.'
  return asyncSupported
    ? `${base} Subagents run in the background: their result re-enters this chat as a new message when they finish. Use follow_up with a subagent id to message a running or retained child.`
    : `${base} In this session delegation is blocking: the call waits for the subagents and returns their results. Use follow_up with a subagent id to message a running or retained child.`
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const strList = (v: unknown): string[] | null =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null

function parseTasks(args: Record<string, unknown>): TaskSpec[] | string {
  if (Array.isArray(args.tasks) && args.tasks.length > 0) {
    if (args.tasks.length > MAX_BATCH) return `Too many tasks in one batch (${args.tasks.length}, max ${MAX_BATCH}).`
    const tasks: TaskSpec[] = []
    for (const [i, t] of args.tasks.entries()) {
      const rec = t && typeof t === 'object' ? (t as Record<string, unknown>) : {}
      const goal = str(rec.goal).trim()
      if (!goal) return `tasks[${i}] is missing 'goal'.`
      tasks.push({
        goal,
        context: str(rec.context) || null,
        toolsets: strList(rec.toolsets),
        role: rec.role === 'orchestrator' ? 'orchestrator' : 'leaf'
      })
    }
    return tasks
  }
  const goal = str(args.goal).trim()
  if (!goal) return "Provide either 'goal' (one task) or 'tasks' (a batch)."
  return [
    {
      goal,
      context: str(args.context) || null,
      toolsets: strList(args.toolsets),
      role: args.role === 'orchestrator' ? 'orchestrator' : 'leaf'
    }
  ]
}

async function delegateTask(
  args: Record<string, unknown>,
  parent: DelegationParent | null,
  deps: DelegateDeps,
  call: CallInfo = {}
): Promise<ToolPayload> {
  if (!parent) return { error: NO_PARENT_ERROR }
  const followUp = str(args.follow_up).trim()
  if (followUp) return handleFollowUp(deps, followUp, args.goal, args.context, parent, call.signal)

  if (deps.live.isSpawnPaused()) return { error: SPAWN_PAUSED_ERROR }
  const cfg = deps.config()
  const depth = Number.isFinite(parent.depth) ? parent.depth : 0
  if (depth >= cfg.maxSpawnDepth) return { error: depthLimitError(depth, cfg.maxSpawnDepth) }
  const tasks = parseTasks(args)
  if (typeof tasks === 'string') return { error: tasks }
  // delegation.max_iterations alone, as upstream: a max_iterations in the call (not offered, yet a model may send one)
  // is ignored, so the user's budget holds whatever the model asks
  const maxIterations = cfg.maxIterations

  // Top-level calls always go to the background; nested orchestrators wait for their children.
  const wantsBackground = depth === 0
  let asyncOk = true
  try {
    asyncOk = deps.asyncDeliverySupported()
  } catch {
    asyncOk = false // a check that throws: no background delivery, the child runs in the foreground
  }
  if (!wantsBackground || !asyncOk) {
    const prepared = await prepareChildren(deps, parent, tasks, maxIterations)
    const out = await runInline(deps, parent, tasks, prepared, call)
    return wantsBackground ? { ...out, note: STATELESS_NOTE } : out
  }

  const delegationId = newDelegationId()
  // Reserve before building children so two concurrent calls cannot both squeeze past the cap.
  if (deps.pool.isStopped) return { error: 'The host is shutting down: no background delegation starts now.' }
  if (!deps.pool.tryReserve(delegationId, cfg.maxConcurrentChildren))
    return { error: capacityError(deps.pool.size, tasks.length > 1) }
  try {
    const prepared = await prepareChildren(deps, parent, tasks, maxIterations)
    return await dispatchBackground(deps, parent, tasks, prepared, delegationId, call)
  } catch (e) {
    deps.pool.release(delegationId)
    return { error: `Could not dispatch the delegation: ${errorMessage(e)}` }
  }
}

export interface DelegateToolOptions {
  /** The calling agent for a tool context; null when the call has no parent agent. Default: `parentFromToolContext`. */
  parent?(ctx: ToolContext): DelegationParent | null
}

export function createDelegateTool(deps: DelegateDeps, opts: DelegateToolOptions = {}): ToolDefinition {
  const resolveParent = opts.parent ?? parentFromToolContext
  return {
    name: 'delegate_task',
    toolset: 'delegation',
    get description() {
      let ok = true
      try {
        ok = deps.asyncDeliverySupported()
      } catch {
        ok = false // as above: a check that throws means no background delivery
      }
      return delegateToolDescription(ok)
    },
    parameters: DELEGATE_TASK_PARAMETERS as unknown as Record<string, unknown>,
    async execute(args, ctx) {
      const payload = await delegateTask(args, resolveParent(ctx), deps, {
        sessionKey: ctx.gatewaySessionKey,
        signal: ctx.signal
      })
      return JSON.stringify(payload)
    }
  }
}
