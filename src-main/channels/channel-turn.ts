/**
 * One API-server agent turn, shared by chat completions, responses and runs: where it goes (conversation.ts),
 * retries that must not run (or store) twice, and the concurrency cap (upstream's `max_concurrent_runs`).
 */
import { moneyFromTurn } from '@shared/contract/money'
import { ZERO_TOKENS } from '@shared/contract/tokens'
import type { ApiContext } from './context'
import { planConversation, type Turn } from './conversation'
import { TURN_CHANNELS, type ChannelTurnResult, type ContentParts, type TurnHandle } from './gateway-face'
import { HttpError } from './http'

/** A retry of a request answered this long ago gets that answer back instead of a second run. */
export const RETRY_WINDOW_SEC = 30
const IDEMPOTENCY_TTL_MS = 300_000
const IDEMPOTENCY_MAX = 1000

export interface TurnRequest {
  /** The caller's system text (never stored). */
  system: string
  /** The system prompt as upstream hashes it into the session id (its `system` messages only). */
  idSystem: string | null
  history: Turn[]
  text: string
  /** The user message's parts when it carries images. */
  parts?: ContentParts
  /** `X-Hermes-Session-Id` / `previous_response_id` / a run's `session_id`: continue exactly this session. */
  sessionId?: string
  model?: string
  /** `X-Hermes-Session-Key`: the caller's long-term memory scope (validated: context.ts memoryKeyHeader). */
  memoryKey?: string
  onDelta?: (d: { kind: string; text?: string; toolName?: string; toolCallId?: string }) => void
  /** `warnings`: what the agent build told the user (a memory provider left out), for a header before streaming. */
  onStarted?: (h: TurnHandle, warnings: string[]) => void
}

export type TurnOutcome = ChannelTurnResult & { replayed: boolean }

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

/** Turns of this server that are running now or answered an Idempotency-Key recently. */
export class TurnLedger {
  private readonly inflight = new Map<string, Promise<TurnOutcome>>()
  private readonly keyed = new Map<string, { fp: string; at: number; result: Promise<TurnOutcome> }>()

  /** The same request (session + text) already running: wait for it instead of a second, conflicting run. */
  once(key: string, run: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    const hit = this.inflight.get(key)
    if (hit) return hit.then((r) => ({ ...r, replayed: true }))
    const p = run().finally(() => this.inflight.delete(key))
    this.inflight.set(key, p)
    return p
  }

  /** An `Idempotency-Key` seen with the same body: its first result, never a second turn. */
  idempotent(key: string, fp: string, run: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    const now = Date.now()
    for (const [k, v] of this.keyed) if (now - v.at > IDEMPOTENCY_TTL_MS) this.keyed.delete(k)
    const hit = this.keyed.get(key)
    if (hit && hit.fp === fp) return hit.result.then((r) => ({ ...r, replayed: true }))
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
  const plan =
    req.sessionId || !ctx.sessions
      ? { kind: 'continue' as const, sessionId: req.sessionId }
      : await planConversation(ctx.sessions, {
          system: req.idSystem ?? '',
          history: req.history,
          text: req.text,
          ...(req.parts ? { parts: req.parts } : {}),
          nowSec: Date.now() / 1000,
          retryWindowSec: RETRY_WINDOW_SEC,
          model: req.model
        })
  if (plan.kind === 'replay') return replayed(ctx, plan.sessionId, plan.reply)
  const key = `${plan.sessionId ?? ''}\n${req.text}`
  const run = async (): Promise<TurnOutcome> => ({
    ...(await ctx.gateway.runChannelTurn({
      profile: ctx.profile,
      channel: TURN_CHANNELS.api,
      text: req.text,
      ...(req.parts ? { parts: req.parts } : {}),
      // A `model_routes` alias runs its model (and provider/endpoint); any other name is only echoed.
      ...routeOf(ctx, req.model),
      // A stored session brings its own history; the request's is used only for a conversation we do not keep.
      history: ctx.sessions && !req.sessionId ? [] : req.history,
      sessionId: plan.sessionId,
      ephemeralPrompt: req.system,
      ...(req.memoryKey ? { memoryKey: req.memoryKey } : {}),
      ...(plan.kind === 'answer' ? { savedMessageId: plan.messageId } : {}),
      onStarted: req.onStarted,
      onDelta: req.onDelta as never
    })),
    replayed: false
  })
  return plan.sessionId ? ctx.turns.once(key, run) : run()
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

function replayed(ctx: ApiContext, sessionId: string, reply: string): TurnOutcome {
  return {
    turnId: '',
    profile: ctx.profile,
    sessionId,
    status: 'completed',
    tokens: ZERO_TOKENS(),
    cost: moneyFromTurn(null),
    apiCalls: 0,
    warnings: [],
    reply,
    replayed: true
  }
}
