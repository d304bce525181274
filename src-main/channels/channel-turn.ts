/**
 * One API-server agent turn, shared by chat completions, responses and runs: where it goes (conversation.ts),
 * Idempotency-Key retries that must not run (or store) twice, and the concurrency cap (upstream's
 * `max_concurrent_runs`). Every other request runs the agent, as upstream's server does.
 */
import { newSessionId, type ApiContext } from './context'
import { comparable, planConversation, quotedConversation, type ConversationSessions, type Turn } from './conversation'
import { TURN_CHANNELS, type ChannelTurnResult, type ContentParts, type TurnHandle } from './gateway-face'
import { HttpError } from './http'
import type { TaskRequest } from './task-request'

const IDEMPOTENCY_TTL_MS = 300_000
const IDEMPOTENCY_MAX = 1000

export interface TurnRequest {
  /** The caller's system text (never stored). */
  system: string
  /** The system prompt as upstream hashes it into the session id (its `system` messages only). */
  idSystem: string | null
  history: Turn[]
  /**
   * Turns the caller sent before `text` in a session it names by a chain (a chained Responses request's earlier input
   * items): stored in that session before the message, so the model reads them after its transcript.
   */
  prelude?: Turn[]
  text: string
  /** The user message's parts when it carries images. */
  parts?: ContentParts
  /** `text` is the assistant's unfinished reply sent back to be continued (conversation.ts). */
  continued?: boolean
  /** `X-Hermes-Session-Id` / `previous_response_id` / a run's `session_id`: continue exactly this session. */
  sessionId?: string
  model?: string
  /** `X-Hermes-Session-Key`: the caller's long-term memory scope (validated: context.ts memoryKeyHeader). */
  memoryKey?: string
  /** A chat UI's background task (task-request.ts): no conversation of its own unless a session is named. */
  task?: TaskRequest
  onDelta?: (d: { kind: string; text?: string; toolName?: string; toolCallId?: string }) => void
  /** `warnings`: what the agent build told the user (a memory provider left out), for a header before streaming. */
  onStarted?: (h: TurnHandle, warnings: string[]) => void
}

export type TurnOutcome = ChannelTurnResult

/** A task's hidden sessions, and its task (TurnLedger.keepStray). */
type Stray = { ran: string[]; task: string }

/** In-flight agent requests across every route; over the cap a request is refused with 429 (0 = no cap). */
export class RunLimiter {
  private active = 0
  constructor(readonly max: number) {}
  admit(): () => void {
    if (this.max > 0 && this.active >= this.max)
      throw new HttpError(
        429,
        `Too many concurrent runs (max ${this.max})`,
        'rate_limit_error',
        'rate_limit_exceeded',
        { 'retry-after': '1' }
      )
    this.active++
    let released = false
    return () => {
      if (!released) this.active--
      released = true
    }
  }
}

/**
 * Sessions this server's header-less requests run in now, Idempotency-Keys answered recently, and the task sessions
 * waiting for the conversation they were asked for.
 */
export class TurnLedger {
  private readonly running = new Set<string>()
  private readonly keyed = new Map<string, { fp: string; at: number; result: Promise<TurnOutcome> }>()
  private readonly strays = new Map<string, { at: number; found: Stray[] }>()

  /** Takes a session for one request; false when another request of this server runs in it. */
  claim(sessionId: string): boolean {
    if (this.running.has(sessionId)) return false
    this.running.add(sessionId)
    return true
  }

  release(sessionId: string): void {
    this.running.delete(sessionId)
  }

  /**
   * A chat UI's task that quoted no stored conversation, kept (hidden) under the user message it quoted last: the
   * queries Open WebUI asks before a conversation's first message is sent. The conversation's later tasks quote that
   * message with its reply and take it (`takeStrays`).
   */
  keepStray(message: string, stray: Stray): void {
    const now = Date.now()
    for (const [k, v] of this.strays) if (now - v.at > IDEMPOTENCY_TTL_MS) this.strays.delete(k)
    const kept = this.strays.get(message)
    this.strays.set(message, { at: now, found: [...(kept?.found ?? []), stray] })
    while (this.strays.size > IDEMPOTENCY_MAX) this.strays.delete(this.strays.keys().next().value!)
  }

  /** The strays kept under any of these messages, each taken once. */
  takeStrays(messages: string[]): Stray[] {
    const now = Date.now()
    return messages.flatMap((m) => {
      const kept = this.strays.get(m)
      this.strays.delete(m)
      return kept && now - kept.at <= IDEMPOTENCY_TTL_MS ? kept.found : []
    })
  }

  /** An `Idempotency-Key` seen with the same body: its first result, never a second turn. */
  idempotent(key: string, fp: string, run: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    const now = Date.now()
    for (const [k, v] of this.keyed) if (now - v.at > IDEMPOTENCY_TTL_MS) this.keyed.delete(k)
    const hit = this.keyed.get(key)
    if (hit && hit.fp === fp) return hit.result
    const result = run()
    this.keyed.set(key, { fp, at: now, result })
    // A failed turn may be retried under the same key (it then answers the user message already stored).
    const forget = () => this.keyed.get(key)?.result === result && this.keyed.delete(key)
    result.then((r) => r.status === 'error' && forget(), forget)
    while (this.keyed.size > IDEMPOTENCY_MAX) this.keyed.delete(this.keyed.keys().next().value!)
    return result
  }
}

export async function runApiTurn(ctx: ApiContext, req: TurnRequest): Promise<TurnOutcome> {
  const claimed: string[] = []
  const letGo = () => claimed.splice(0).forEach((sid) => ctx.turns.release(sid))
  const sessions = req.sessionId ? undefined : ctx.sessions
  if (sessions && req.task) return runTask(ctx, sessions, req, req.task)
  // A stored session's reads may meet another program's commit: the whole attempt is tried again (its claims let go
  // first), never a read on its own, so each attempt still reads and claims in the same tick.
  const plan = !sessions
    ? { kind: 'continue' as const, sessionId: req.sessionId }
    : await sessions.retrying(() =>
        planConversation(sessions, {
          system: req.idSystem ?? '',
          history: req.history,
          text: req.text,
          ...(req.parts ? { parts: req.parts } : {}),
          ...(req.continued ? { continued: true } : {}),
          nowSec: Date.now() / 1000,
          model: req.model,
          claim: (sid) => ctx.turns.claim(sid) && claimed.push(sid) > 0
        }).catch((err: unknown) => {
          letGo()
          throw err
        })
      )
  try {
    return await run(ctx, req, plan)
  } finally {
    letGo()
  }
}

/**
 * A chat UI's background task (task-request.ts) runs the agent as any request does, with the same answer, but is never
 * planned into a conversation (it continues or branches none): it runs in a fresh session of its own, recorded as an
 * internal one (`source = 'tool'`, which no human session list of either program shows while it runs), and is then
 * settled: folded into the conversation it quotes (found before it runs, so a stream's header can name it already) or
 * kept hidden until a later task of the conversation quotes the message it was asked for with its reply (Open WebUI's
 * title and follow-ups after a first reply quote it; its search queries before a first message could not find it). The
 * response names the session its usage is recorded in.
 */
async function runTask(
  ctx: ApiContext,
  sessions: ConversationSessions,
  req: TurnRequest,
  task: TaskRequest
): Promise<TurnOutcome> {
  const conversation = await sessions.retrying(async () => quotedConversation(sessions, task.quoted))
  const sid = newSessionId()
  const quotedUser = task.quoted.filter((t) => t.role === 'user').map((t) => comparable(t.content))
  const settle = async (ran: string[], fallback: string) => {
    try {
      const recorded = await sessions.settleTask(ran, conversation, task.task)
      if (conversation)
        for (const stray of ctx.turns.takeStrays(quotedUser))
          await sessions.settleTask(stray.ran, conversation, stray.task)
      else if (quotedUser.length && !task.quoted.some((t) => t.role === 'assistant'))
        ctx.turns.keepStray(quotedUser.at(-1)!, { ran, task: task.task })
      return recorded
    } catch {
      // the answer stands whatever happens to its bookkeeping: a refused write leaves the task's `tool` session as it ran
      return fallback
    }
  }
  const onStarted = req.onStarted
  let r: TurnOutcome
  try {
    r = await run(
      ctx,
      {
        ...req,
        ...(onStarted ? { onStarted: (h, w) => onStarted({ ...h, sessionId: conversation ?? h.sessionId }, w) } : {})
      },
      { kind: 'new', sessionId: sid },
      TURN_CHANNELS.apiTask
    )
  } catch (err) {
    await settle([sid], sid)
    throw err
  }
  return { ...r, sessionId: await settle([sid, r.sessionId], r.sessionId) }
}

async function run(
  ctx: ApiContext,
  req: TurnRequest,
  plan: { kind: 'new' | 'continue' | 'answer'; sessionId?: string; messageId?: number },
  channel: (typeof TURN_CHANNELS)['api' | 'apiTask'] = TURN_CHANNELS.api
): Promise<TurnOutcome> {
  return ctx.gateway.runChannelTurn({
    profile: ctx.profile,
    channel,
    text: req.text,
    ...(req.parts ? { parts: req.parts } : {}),
    // A `model_routes` alias runs its model (and provider/endpoint); any other name is only echoed.
    ...routeOf(ctx, req.model),
    history: req.prelude ? [] : req.history,
    ...(req.prelude?.length ? { prelude: req.prelude.map(({ role, content }) => ({ role, content })) } : {}),
    // A conversation planned from the request (no session named): the model reads the request's messages, as
    // upstream's does, even where the session stores them otherwise (a "Continue" stored the continued text as the
    // user's message; tool calls are stored, a chat UI sends text). A named session reads its own transcript and the
    // request's history only seeds it when new.
    ...(ctx.sessions && !req.sessionId ? { callerHistory: true } : {}),
    sessionId: plan.sessionId,
    ephemeralPrompt: req.system,
    ...(req.memoryKey ? { memoryKey: req.memoryKey } : {}),
    ...(plan.kind === 'answer' ? { savedMessageId: plan.messageId } : {}),
    onStarted: req.onStarted,
    onDelta: req.onDelta as never
  })
}

function routeOf(ctx: ApiContext, model: string | undefined) {
  const r = model ? ctx.routes[model] : undefined
  if (!r) return {}
  return {
    model: r.model,
    ...(r.provider ? { provider: r.provider } : {}),
    ...(r.baseUrl ? { baseUrl: r.baseUrl } : {})
  }
}
