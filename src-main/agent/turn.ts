/**
 * One turn around the loop: wire the abort sources (interrupt, caller signal, close, inactivity watchdog),
 * run the memory hooks, persist the user message first (bad provider config must not lose it), run the
 * loop, and turn whatever happened into a TurnResult. Never throws for provider or tool trouble.
 */
import type { Agent } from './agent'
import { ProviderError } from './providers/types'
import { TurnAccounting } from './turn-accounting'
import { InterruptReason, type TurnContext } from './turn-context'
import type { ExitReason, TurnOptions, TurnResult, TurnStatus } from './types'
import { errorMessage } from '@shared/contract/errors'
import { buildMemoryContextBlock } from '../memory'
import { readRetrying } from '../store'
import { countNudgeTurn, noteMemoryCalls } from './memory-review'
import { explainEnding } from './turn-explainer'

export async function runTurn(
  agent: Agent,
  text: string,
  controller: AbortController,
  opts: TurnOptions & { turnId: string }
): Promise<TurnResult> {
  const acct = new TurnAccounting()
  const ctx: TurnContext = {
    turnId: opts.turnId,
    signal: controller.signal,
    acct,
    emit: (delta) => {
      try {
        opts.onDelta?.(delta)
      } catch (err) {
        agent.log?.warn('agent', `delta listener failed: ${errorMessage(err)}`)
      }
    },
    memoryContext: '',
    userMessage: null,
    watchdogPaused: false,
    compressionDisabled: false,
    lastUsage: null
  }
  const onCallerAbort = () => controller.abort(new InterruptReason('caller', 'stopped by caller'))
  if (opts.signal?.aborted) onCallerAbort()
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true })
  agent.apiCallCount = 0
  agent.turnsRun++
  agent.touch('starting turn', 'turn')
  const stopWatchdog = startWatchdog(agent, ctx, controller)

  let exitReason: ExitReason = 'completed'
  let finalText = ''
  let error: string | undefined
  let reviewDue = false
  let turnStart = 0
  try {
    await agent.ensureReady(opts.history)
    turnStart = agent.sessionMessages.length
    // A caller-saved user message may already be in the loaded history: it is this turn's, not a prior one.
    // (counted only where a review may be due: countNudgeTurn asks for it)
    const prior = () => {
      const last = agent.sessionMessages.at(-1)
      const loadedThis = opts.savedUserMessageId !== undefined && last?.role === 'user' && last.content === text
      return agent.sessionMessages.filter((m) => m.role === 'user').length - (loadedThis ? 1 : 0)
    }
    reviewDue = countNudgeTurn(agent, prior)
    await runMemoryPreamble(agent, ctx, text)
    let user: (typeof agent.sessionMessages)[number] = {
      role: 'user' as const,
      content: text,
      ...(opts.parts?.length ? { parts: opts.parts } : {})
    }
    if (opts.savedUserMessageId === undefined) await agent.save(user, ctx)
    else {
      // ensureReady() may have loaded it with the history already; never hold it twice in memory either.
      const last = opts.history ? undefined : agent.sessionMessages.at(-1)
      const loaded = last?.role === 'user' && last.content === text && !user.parts
      if (loaded) user = last!
      if (!user.identity) {
        // Saved by the caller (the gateway, a notice) and not loaded with the history: its row's identity, so the
        // copy a compression continuation makes of it keeps its uid (v31; nothing on an older home).
        const savedId = opts.savedUserMessageId
        const uids = await readRetrying(async () => agent.store.messageUids?.(agent.sessionId, savedId))
        if (uids) user.identity = uids
      }
      if (!loaded) {
        // Loaded from the store, an image message reads as text: the images must still reach this turn's call.
        if (last?.role === 'user' && user.parts) agent.sessionMessages[agent.sessionMessages.length - 1] = user
        else agent.sessionMessages.push(...(opts.prelude ?? []).map((m) => ({ ...m })), user)
      }
      agent.lastFlushedDbIdx = agent.sessionMessages.length
      ctx.emit({ kind: 'message_saved', messageId: opts.savedUserMessageId, savedSessionId: agent.sessionId })
    }
    // The loop finds this turn's user message by identity (to add the recalled memory to it in requests only).
    ctx.userMessage = user
    const outcome = await agent.loop(ctx)
    exitReason = outcome.exitReason
    // the answer the caller gets: with why the turn ended there when it has no usable one (the stored rows stay)
    finalText = explainEnding({ ...outcome, maxIterations: agent.maxIterations }, agent.turnExplainer())
    error = outcome.error
  } catch (err) {
    exitReason = 'error'
    error = err instanceof ProviderError || err instanceof Error ? err.message : String(err)
    agent.log?.warn('agent', `turn ${ctx.turnId} on session ${agent.sessionId} failed: ${error}`)
  } finally {
    stopWatchdog()
    opts.signal?.removeEventListener('abort', onCallerAbort)
  }

  const reason = controller.signal.aborted ? controller.signal.reason : null
  // A partial answer is not a completed turn (upstream: completed false, partial true): status error, text kept.
  let status: TurnStatus =
    exitReason === 'error' || exitReason === 'partial'
      ? 'error'
      : exitReason === 'interrupted'
        ? 'interrupted'
        : 'completed'
  if (reason instanceof InterruptReason) {
    if (reason.kind === 'inactivity') {
      status = 'error'
      exitReason = 'inactivity'
      error = reason.message
    } else if (status !== 'completed') {
      status = 'interrupted'
      exitReason = 'interrupted'
      error = undefined
    }
  }
  agent.touch(`turn ${status}`, 'turn')
  // From the turn's user message on (a compression may have moved it to the start of a continuation).
  const at = ctx.userMessage ? agent.sessionMessages.indexOf(ctx.userMessage) : -1
  noteMemoryCalls(agent, agent.sessionMessages.slice(at >= 0 ? at : turnStart))
  if (status === 'completed' && agent.memory?.syncAll) {
    try {
      await agent.memory.syncAll(text, finalText, {
        sessionId: agent.sessionId,
        turnId: opts.turnId,
        messages: agent.sessionMessages.map((m) => ({ ...m }))
      })
    } catch (err) {
      agent.log?.warn('agent', `memory sync failed: ${errorMessage(err)}`)
    }
    try {
      await agent.memory.queuePrefetchAll?.(text, { sessionId: agent.sessionId })
    } catch (err) {
      agent.log?.warn('agent', `memory queue-prefetch failed: ${errorMessage(err)}`)
    }
  }
  // After the answer is in, never before it: the review must not hold up or interleave with the user's turn.
  if (reviewDue && status === 'completed' && finalText) agent.startMemoryReview()
  return {
    status,
    exitReason,
    ...(error ? { error } : {}),
    ...(exitReason === 'partial' ? { partial: true } : {}),
    finalText,
    tokens: { ...acct.tokens },
    ...acct.cost(),
    apiCalls: acct.apiCalls,
    messagesSaved: acct.messagesSaved,
    sessionId: agent.sessionId
  }
}

async function runMemoryPreamble(agent: Agent, ctx: TurnContext, text: string): Promise<void> {
  const memory = agent.memory
  if (!memory) return
  agent.touch('memory hooks', 'memory')
  // Every memory hook has its own timeout; a slow memory provider is not an idle model. Stop still ends the
  // wait at once: the hooks are raced against the turn's signal and the turn goes on to end as interrupted.
  ctx.watchdogPaused = true
  try {
    await untilAborted(
      memory.onTurnStart?.(agent.turnsRun, text, {
        model: agent.runtime.model,
        platform: agent.platform,
        toolCount: agent.tools.list().length
      }),
      ctx.signal
    )
  } catch (err) {
    agent.log?.warn('agent', `memory turn-start hook failed: ${errorMessage(err)}`)
  }
  try {
    // The fenced block itself (upstream's build_memory_context_block): the recalled text is sanitised so it
    // cannot close the fence early, and its note tells the model this is memory, not new user input.
    if (ctx.signal.aborted) return
    ctx.memoryContext = buildMemoryContextBlock(
      (await untilAborted(
        memory.prefetchAll?.(text, { sessionId: agent.sessionId, turnId: ctx.turnId }),
        ctx.signal
      )) ?? '',
      () => agent.log?.warn('agent', 'memory provider returned pre-wrapped context; stripped')
    )
  } catch (err) {
    agent.log?.warn('agent', `memory prefetch failed: ${errorMessage(err)}`)
  } finally {
    ctx.watchdogPaused = false
    agent.touch('memory hooks done', 'memory')
  }
}

/** The hook's result, or undefined as soon as the turn is aborted (the hook itself is left to its own timeout). */
function untilAborted<T>(work: Promise<T> | T | undefined, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  let onAbort: (() => void) | undefined
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([Promise.resolve(work), aborted]).finally(() => signal.removeEventListener('abort', onAbort!))
}

/** Aborts the turn when the model side shows no activity for the configured time. Runs only during a turn. */
function startWatchdog(agent: Agent, ctx: TurnContext, controller: AbortController): () => void {
  const limit = agent.inactivityTimeoutMs
  if (!limit) return () => undefined
  const timer = setInterval(
    () => {
      if (ctx.watchdogPaused || controller.signal.aborted) return
      const idle = Date.now() - agent.lastActivityTs
      if (idle > limit)
        controller.abort(
          new InterruptReason(
            'inactivity',
            `no activity for ${Math.round(idle / 1000)} s (limit ${limit / 1000} s): turn aborted`
          )
        )
    },
    Math.max(50, Math.min(1000, Math.floor(limit / 4)))
  )
  timer.unref?.()
  return () => clearInterval(timer)
}
