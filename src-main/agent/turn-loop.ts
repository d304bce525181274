/**
 * The tool loop of one turn: model call → assistant message saved → tool calls run, each result saved →
 * steering messages folded in at the boundary → repeat, up to maxIterations model calls. Every message is
 * appended to the store the moment it exists, so a crash or interrupt loses only what was never produced.
 */
import { compressContext, compressionNeed, type CompressionHost } from './compression'
import { cutOffJson } from './json-prefix'
import { assistantMessage } from './messages'
import { callModel, PartialCallError } from './model-call'
import { resolveCallLimits } from './providers/call-limits'
import {
  ProviderError,
  type AgentMessage,
  type ChatRequest,
  type ReasoningConfig,
  type RuntimeConfig
} from './providers/types'
import { streamAttemptLimit, streamRetryWaitMs } from './stream-retry'
import { cutReplyText } from './stopped-text'
import { chatRequest } from './chat-request'
import { EMPTY_SENTINEL, EmptyReplies, NO_REPLY_TEXT } from './empty-reply'
import { runToolCalls } from './tool-runner'
import { summarizeAtLimit } from './limit-summary'
import type { ToolCallerAgent, ToolRegistry } from './tools/registry'
import type { TurnContext } from './turn-context'
import type { ExitReason } from './types'
import type { NewMessage } from '../store'
import type { resolveCompression } from './compression'
import { errorMessage } from '@shared/contract/errors'
import { STOPPED_REPLY } from '@shared/contract/stopped-turn'

/** What the loop needs from the Agent (the Agent implements it). */
export interface LoopHost extends CompressionHost, ToolCallerAgent {
  sessionId: string
  readonly runtime: RuntimeConfig
  readonly tools: ToolRegistry
  readonly maxIterations: number
  reasoningConfig: ReasoningConfig | null
  apiCallCount: number
  readonly compressionConfig: ReturnType<typeof resolveCompression>
  compressing: boolean
  systemPromptText(): string
  takeSteers(): string[]
  hasSteers(): boolean
  save(msg: AgentMessage, ctx: TurnContext, extra?: Partial<NewMessage>): Promise<number>
}

export interface LoopOutcome {
  exitReason: Extract<ExitReason, 'completed' | 'max_iterations' | 'interrupted' | 'partial'>
  finalText: string
  /** Why the answer is incomplete (exitReason `partial`). */
  error?: string
  /** The model sent nothing to show after every retry. */
  unanswered?: true
}

/** How many times in a row a reply cut off in its tool calls is asked for again, each with twice the output cap. */
const CUT_OFF_RETRIES = 3
/** The output cap assumed when neither the config nor the provider's usage names one. */
const DEFAULT_OUTPUT_CAP = 4096
/** A retry never asks for more than this, unless the configured cap is already higher. */
const MAX_BOOSTED_OUTPUT_CAP = 32768
/** How many times a reply cut off (output cap, dropped stream) is asked to go on: at most this + 1 parts (upstream: 4). */
const CONTINUATIONS = 3
/** How many times in a row a stream cut inside its tool calls is asked for again (upstream: 2). */
const STREAM_RETRIES = 2
/** The failures that cut a stream short (a dropped connection, a stall, a garbled or unterminated stream). */
const CUT_KINDS = new Set<string>(['network', 'timeout', 'malformed'])
/** The user message after a stream that broke off mid-reply (our wording). */
const CONTINUE_AFTER_DROP =
  '[System: The connection dropped while your last reply was streaming, so it is cut short. Pick it up at the ' +
  'exact point where it stopped, without starting over or repeating anything, and finish it.]'
/** The same after a stream that broke off inside tool calls (our wording). */
const CONTINUE_AFTER_TOOL_DROP =
  '[System: The connection dropped while your last reply was streaming a tool call, so the call was never ' +
  'received or run. If it is still needed, make it again; if its arguments were long, split the work into ' +
  'several smaller calls.]'
/** The user message that asks the model to carry on a reply the output cap cut off (our wording). */
const CONTINUE_PROMPT =
  '[System: The output length limit cut your last reply short. Pick it up at the exact point where it stopped, ' +
  'without starting over or repeating anything, and finish it.]'

export async function runLoop(host: LoopHost, ctx: TurnContext): Promise<LoopOutcome> {
  let lastText = ''
  /** The output cap for the next call when it repeats a reply cut off by the cap (undefined: the configured one). */
  let boostedCap: number | undefined
  let cutOffs = 0
  /** Times in a row a stream cut inside its tool calls was asked for again. */
  let streamRetries = 0
  /** Attempts in a row whose stream broke off before any text (stream-retry.ts says how many more, and when). */
  let earlyCuts = 0
  /** The parts so far of a reply cut off (by the output cap or a dropped stream); each is its own assistant row. */
  let parts: string[] = []
  const empties = new EmptyReplies()
  for (let i = 0; ; i++) {
    if (ctx.signal.aborted) return stopped(host, ctx, parts.join(''))
    // Iteration boundary: the previous model call and all its tool calls are done.
    for (const text of host.takeSteers()) {
      host.touch('steering message folded in', 'user')
      await host.save({ role: 'user', content: text }, ctx, { displayKind: 'steer' })
    }
    // At the budget: one more call, without tools, for a final answer (limit-summary.ts), as upstream ends it.
    if (i >= host.maxIterations)
      return summarizeAtLimit(
        host,
        ctx,
        () => buildRequest(host, ctx),
        (text) => stopped(host, ctx, text)
      )
    await maybeCompress(host, ctx)
    if (ctx.signal.aborted) return stopped(host, ctx, parts.join(''))

    let response
    try {
      response = await callModel(
        {
          client: host.getClient(),
          runtime: host.runtime,
          store: host.store,
          sessionId: host.sessionId,
          touch: host.touch,
          log: host.log
        },
        buildRequest(host, ctx, boostedCap, empties.scaffold),
        ctx
      )
    } catch (err) {
      if (!(err instanceof PartialCallError)) throw err
      host.apiCallCount++
      // what the user saw of the reply, and that without reasoning blocks: as upstream keeps a stopped or cut reply
      const { shown, kept } = cutReplyText(err.partialText)
      if (ctx.signal.aborted) {
        // Keep what the user already saw streaming in; the answer so far is the parts cut off before it (a Stop while
        // the model continues a cut-off reply) joined with it, as a finished continuation joins them. The kept row is
        // trimmed and without reasoning blocks, as upstream keeps a stopped reply (its next turn's history reads that row).
        if (kept || err.partialReasoning) {
          const partial = assistantMessage({ text: kept, reasoning: err.partialReasoning, toolCalls: [] })
          await host.save(partial, ctx, { finishReason: 'interrupted' })
        }
        return stopped(host, ctx, parts.join('') + shown)
      }
      const cut = CUT_KINDS.has(err.cause.kind)
      const n = err.toolCallsInFlight
      // A body that ended normally with a tool call's arguments incomplete would be cut the same way again: upstream
      // goes straight to keeping the text and asking the model to go on.
      if (cut && n && !err.cause.closedCleanly && streamRetries < STREAM_RETRIES) {
        // Cut in the middle of its tool calls (none of which ran): asking for the same reply again is safe, and
        // upstream does so, at once.
        streamRetries++
        const where = `in the middle of ${n === 1 ? 'a tool call' : `${n} tool calls`}`
        host.log?.warn(
          'agent',
          `session ${host.sessionId}: stream cut off ${where} (${err.cause.message}); asking again`
        )
        ctx.emit({
          kind: 'notice',
          text: `The provider's stream broke off ${where}; asking for the reply again (${streamRetries}/${STREAM_RETRIES}).`
        })
        // Like upstream's, these attempts are one model call of the turn's budget, not one each.
        i--
        continue
      }
      if (cut && !n && !kept && err.cause.midStream) {
        // Cut before any text reached the user, or a whole reply with nothing in it: the same request again, in
        // upstream's rounds and waits (stream-retry.ts).
        earlyCuts++
        const empty = err.cause.emptyReply
        const limit = streamAttemptLimit(err.cause, host.runtime)
        const what = empty ? "The provider's reply held no content" : "The provider's stream broke off before any text"
        if (earlyCuts < limit) {
          const base = resolveCallLimits(host.runtime.limits).streamRetryWaitMs
          const wait = streamRetryWaitMs(earlyCuts, base, Math.random, empty)
          const when = wait ? `in ${wait >= 1000 ? `${(wait / 1000).toFixed(1)} s` : `${wait} ms`}` : 'now'
          host.log?.warn(
            'agent',
            `session ${host.sessionId}: ${empty ? 'empty reply' : 'stream cut off before any text'} (${err.cause.message}); asking again ${when} (attempt ${earlyCuts + 1} of ${limit})`
          )
          ctx.emit({
            kind: 'notice',
            text: `${what}; asking for the reply again ${when} (attempt ${earlyCuts + 1} of ${limit}).`
          })
          if (wait) {
            host.touch(`waiting ${when.slice(3)} to ask the provider again`, 'model')
            if (!(await pause(wait, ctx.signal))) return stopped(host, ctx, parts.join(''))
          }
          i--
          continue
        }
        // Out of attempts: the turn's error says how often it was asked (upstream: "failed after 3 retries").
        if (err.partialReasoning) {
          const partial = assistantMessage({ text: '', reasoning: err.partialReasoning, toolCalls: [] })
          await host.save(partial, ctx, { finishReason: 'error' })
        }
        throw new ProviderError(
          err.cause.kind,
          `${err.cause.message} (${empty ? 'a reply with no content' : 'the stream broke off before any text'} ${limit} times in a row)`,
          err.cause.status
        )
      }
      const clean = Boolean(n && err.cause.closedCleanly)
      if (cut && (kept || clean)) {
        // Cut after text reached the user, or a body that ended normally inside a tool call's arguments: like a reply
        // cut by the output cap, the part is kept as its own row (finish_reason "length") and the model is asked to go
        // on from there; the same bound applies. A dropped connection's calls are noted in the part (as upstream
        // notes them); a clean end's are said in a notice, the part only the text (empty when none came), as upstream
        // keeps it.
        const calls = `${n === 1 ? 'a tool call' : `${n} tool calls`}; ${n === 1 ? 'it was' : 'they were'} not run`
        const note = n && !clean ? `\n\n[The stream broke off in the middle of ${calls}.]` : ''
        if (note) ctx.emit({ kind: 'text', text: note })
        const part = kept + note
        await host.save(assistantMessage({ text: part, reasoning: err.partialReasoning, toolCalls: [] }), ctx, {
          finishReason: 'length'
        })
        streamRetries = 0
        earlyCuts = 0
        parts.push(part)
        lastText = parts.join('')
        host.log?.warn('agent', `session ${host.sessionId}: stream cut off mid-reply (${err.cause.message})`)
        const end = endOfContinuations(host, ctx, parts, i, 'stream')
        if (end) return end
        const stopped = await askToContinue(
          host,
          ctx,
          clean
            ? `The provider's stream ended in the middle of ${calls}. Asking the model to continue (${parts.length}/${CONTINUATIONS}).`
            : `The provider's stream broke off mid-reply; asking the model to continue (${parts.length}/${CONTINUATIONS}).`,
          n ? CONTINUE_AFTER_TOOL_DROP : CONTINUE_AFTER_DROP,
          lastText
        )
        if (stopped) return stopped
        continue
      }
      if (kept || err.partialReasoning) {
        const partial = assistantMessage({ text: kept, reasoning: err.partialReasoning, toolCalls: [] })
        await host.save(partial, ctx, { finishReason: 'error' })
      }
      // Cut inside its tool calls every time, with no text to keep: the error says so and how often it was asked.
      if (cut && n)
        throw new ProviderError(
          err.cause.kind,
          `${err.cause.message} (the stream broke off in the middle of ${n === 1 ? 'a tool call' : `${n} tool calls`} ${STREAM_RETRIES + 1} times in a row; ${n === 1 ? 'it was' : 'they were'} not run)`,
          err.cause.status
        )
      throw err.cause
    }
    host.apiCallCount++
    // A safety refusal (OpenAI's finish_reason "content_filter"; Anthropic's stop_reason "refusal" maps onto it): the
    // same request would be refused again, so the turn ends here, failed, with the model's explanation when it gave
    // one, its reply not stored and its tool calls not run, as upstream ends such a turn. Without this an empty
    // refusal was an empty answer reported as a success.
    if (response.finishReason === 'content_filter') {
      const why = response.text.trim() || response.reasoning?.trim()
      throw new Error(
        `The model declined to respond (a safety refusal, finish_reason "content_filter"); rephrasing the request or using another model may help. ${why ? `Its explanation: ${why}` : 'It gave no explanation.'}`
      )
    }
    // A call whose arguments are JSON cut off before their end under another finish reason ("tool_calls", "stop"): a
    // router that reports the output cap's cut as a normal end (upstream takes it as the cap's cut too).
    const hiddenCut = response.finishReason !== 'length' && response.toolCalls.some(cutArguments)
    if ((response.finishReason === 'length' || hiddenCut) && response.toolCalls.length) {
      // The output cap cut the reply inside its tool calls: the last one's arguments are incomplete, and the
      // complete ones before it were planned together with it, so none of them runs. The reply is not kept (its
      // calls would have no results); the same request goes again with a larger cap, a bounded number of times.
      const { asked, seen, next } = largerCap(host, boostedCap, response)
      const n = response.toolCalls.length
      const calls = n === 1 ? 'tool call' : `${n} tool calls`
      const what = hiddenCut
        ? `The reply's ${calls} ended with arguments cut off mid-JSON (finish_reason "${response.finishReason}"; likely an output cap the provider did not report)`
        : `The reply hit the output cap (${asked ? `max_tokens ${asked}` : "the provider's default"}) in the middle of its ${calls}`
      // A larger cap is what a cap's cut needs; a hidden cut may be the router's own, so it is asked again at the
      // ceiling too (as upstream asks, at the same cap each time).
      if (cutOffs < CUT_OFF_RETRIES && (next > seen || hiddenCut) && !ctx.signal.aborted) {
        cutOffs++
        boostedCap = next
        host.log?.warn(
          'agent',
          `session ${host.sessionId}: ${hiddenCut ? `tool-call arguments cut off (finish_reason ${response.finishReason})` : 'reply cut off by the output cap'}; retrying with max_tokens ${next}`
        )
        ctx.emit({
          kind: 'notice',
          text: `${what}; ${n === 1 ? 'it was not run' : 'none of them was run'}. Asking again with max_tokens ${next} (${cutOffs}/${CUT_OFF_RETRIES}).`
        })
        continue
      }
      if (response.text || response.reasoning) {
        const partial = assistantMessage({ text: response.text, reasoning: response.reasoning, toolCalls: [] })
        await host.save(partial, ctx, { finishReason: 'length', displayMetadata: usageMetadata(ctx) })
      }
      throw new Error(
        `${what}; ${n === 1 ? 'it was' : 'they were'} not run${cutOffs ? ` (asked ${cutOffs + 1} times)` : ''}`
      )
    }
    if (response.finishReason === 'length' && !response.toolCalls.length && !response.replyCapped) {
      // A text reply cut off by the output cap: like upstream, it is kept as an assistant row (finish_reason
      // "length"), a user row asks the model to go on, and the next reply carries on from it; the turn's answer is
      // the parts joined. Bounded: after CONTINUATIONS requests the turn ends partial with the joined text. A reply
      // that Caduceus itself cut at provider_limits.max_reply_chars is not continued.
      await host.save(assistantMessage(response), ctx, { finishReason: 'length', displayMetadata: usageMetadata(ctx) })
      parts.push(response.text)
      lastText = parts.join('')
      const end = endOfContinuations(host, ctx, parts, i, 'cap')
      if (end) return end
      const { seen, next } = largerCap(host, boostedCap, response)
      boostedCap = Math.max(seen, next)
      host.log?.warn('agent', `session ${host.sessionId}: reply cut off by the output cap; asking it to continue`)
      const stopped = await askToContinue(
        host,
        ctx,
        `The reply hit the output cap; asking the model to continue (${parts.length}/${CONTINUATIONS}).`,
        CONTINUE_PROMPT,
        lastText
      )
      if (stopped) return stopped
      continue
    }
    if (!response.toolCalls.length && !parts.length && !response.text.trim()) {
      // Nothing to show (upstream's empty-reply handling, empty-reply.ts): asked again, or the turn ends unanswered.
      const step = empties.next(Boolean(response.reasoning?.trim()), host.sessionMessages, response.inlineThinking)
      if (step.kind !== 'give_up') {
        host.log?.warn('agent', `session ${host.sessionId}: ${step.notice}`)
        ctx.emit({ kind: 'notice', text: step.notice })
        continue
      }
      if (step.storeSentinel)
        await host.save({ role: 'assistant', content: EMPTY_SENTINEL }, ctx, { displayMetadata: usageMetadata(ctx) })
      host.log?.warn('agent', `session ${host.sessionId}: no reply after every retry`)
      ctx.emit({ kind: 'notice', text: NO_REPLY_TEXT })
      // the stand-in upstream answers with; the turn puts the explanation in its place (turn-explainer.ts)
      return { exitReason: 'completed', finalText: EMPTY_SENTINEL, unanswered: true }
    }
    empties.reset()
    boostedCap = undefined
    cutOffs = 0
    streamRetries = 0
    earlyCuts = 0
    // The parts cut off earlier stay the start of the turn's answer across a continuation that calls tools (as
    // upstream's answer keeps them); the text beside the tool calls is not part of it.
    const joined = parts.join('') + response.text
    if (!response.toolCalls.length) parts = []
    const msg = assistantMessage(response)
    await host.save(msg, ctx, { finishReason: response.finishReason, displayMetadata: usageMetadata(ctx) })
    if (response.toolCalls.length) {
      await runToolCalls(
        {
          registry: host.tools,
          toolContext: {
            profile: host.profile,
            sessionId: host.sessionId,
            turnId: ctx.turnId,
            gatewaySessionKey: host.gatewaySessionKey,
            agent: host
          },
          touch: host.touch,
          saveResult: async (r) => {
            await host.save({ role: 'tool', content: r.content, tool_call_id: r.id, name: r.name }, ctx)
          }
        },
        response.toolCalls,
        ctx
      )
      ctx.streamBreak = true
      continue
    }
    // A steer that arrived during the final answer still gets its own model call.
    if (host.hasSteers() && i + 1 < host.maxIterations && !ctx.signal.aborted) continue
    return { exitReason: 'completed', finalText: joined }
  }
}

/**
 * Compresses when over the threshold, at most as often as that helps: when what is over is the part compression
 * keeps whole (this turn's message and its tool rounds), or a compression left the context still over, the turn
 * says so once and goes on without rotating again (each rotation is a new session; one per tool round would bury
 * the conversation in a chain of near-identical continuations).
 */
async function maybeCompress(host: LoopHost, ctx: TurnContext): Promise<void> {
  if (ctx.compressionDisabled) return
  const extra = host.systemPromptText().length + JSON.stringify(host.tools.schemas()).length + ctx.memoryContext.length
  const need = () => compressionNeed(host.compressionConfig, host.sessionMessages, extra, ctx.userMessage)
  const stuck = (text: string) => {
    ctx.compressionDisabled = true
    host.log?.warn('agent', `session ${host.sessionId}: ${text}`)
    ctx.emit({ kind: 'notice', text })
  }
  const before = need()
  if (before === 'stuck')
    return stuck(
      'The context is over the compression threshold, but what is over is this turn itself: not compressing it.'
    )
  if (before === 'under') return
  host.compressing = true
  try {
    await compressContext(host, host.compressionConfig, ctx)
    if (need() !== 'under')
      stuck('The context is still over the compression threshold after compressing: not compressing again this turn.')
  } catch (err) {
    if (ctx.signal.aborted) return
    ctx.compressionDisabled = true
    const message = err instanceof PartialCallError ? err.cause.message : errorMessage(err)
    host.log?.warn('agent', `context compression failed; continuing uncompressed: ${message}`)
    ctx.emit({ kind: 'notice', text: `Context compression failed: ${message}` })
  } finally {
    host.compressing = false
  }
}

/**
 * The turn's end on the user's Stop, its answer so far `finalText`: the parts of a cut-off reply, never the text
 * beside tool calls (as a finished turn's answer). A Stop between a tool round and the model's next reply leaves the
 * conversation on a tool result; upstream then closes it with an assistant row, so the next user message does not
 * follow a tool result (which strict providers take badly), and this does too, in our words (STOPPED_REPLY).
 */
async function stopped(host: LoopHost, ctx: TurnContext, finalText: string): Promise<LoopOutcome> {
  if (host.sessionMessages.at(-1)?.role === 'tool') await host.save({ role: 'assistant', content: STOPPED_REPLY }, ctx)
  return { exitReason: 'interrupted', finalText }
}

/** Waits `ms`, or less when the signal aborts first (then false): a Stop never waits out a retry's wait. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const done = (waited: boolean) => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      resolve(waited)
    }
    const onAbort = () => done(false)
    const timer = setTimeout(() => done(true), ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Asks the model to go on after a cut-off part: says so, then saves the agent's own "go on" as a user row marked
 * `continuation_notice` (the API server's conversation planning reads past it). Stopped meanwhile: the turn's end.
 */
async function askToContinue(
  host: LoopHost,
  ctx: TurnContext,
  notice: string,
  prompt: string,
  finalText: string
): Promise<LoopOutcome | undefined> {
  ctx.emit({ kind: 'notice', text: notice })
  if (ctx.signal.aborted) return { exitReason: 'interrupted', finalText }
  await host.save({ role: 'user', content: prompt }, ctx, { displayKind: 'continuation_notice' })
  return undefined
}

/**
 * The output cap a reply cut by it was asked with (`asked`: the boosted one, else the runtime's), the cap it reached
 * (`seen`: that, or the output it used where larger, or the default), and the next one to ask for: twice that, up to
 * MAX_BOOSTED_OUTPUT_CAP (or the runtime's own cap where higher).
 */
function largerCap(
  host: LoopHost,
  boostedCap: number | undefined,
  response: { usage?: { outputTokens?: number } | null }
): { asked: number | undefined; seen: number; next: number } {
  const asked = boostedCap ?? host.runtime.maxTokens
  const seen = Math.max(asked ?? 0, response.usage?.outputTokens ?? 0) || DEFAULT_OUTPUT_CAP
  return { asked, seen, next: Math.min(seen * 2, Math.max(MAX_BOOSTED_OUTPUT_CAP, host.runtime.maxTokens ?? 0)) }
}

/**
 * After a cut-off part: the end of the turn when no more continuations may be asked for (undefined: ask). Out of
 * continuations the answer stands incomplete, the turn ends `partial` (upstream's partial result: not completed,
 * its text kept); at the iteration budget it ends as before.
 */
function endOfContinuations(
  host: LoopHost,
  ctx: TurnContext,
  parts: string[],
  i: number,
  cause: 'cap' | 'stream'
): LoopOutcome | undefined {
  const finalText = parts.join('')
  if (ctx.signal.aborted) return { exitReason: 'interrupted', finalText }
  const by = cause === 'cap' ? 'by the output cap' : 'by a dropped stream'
  if (parts.length > CONTINUATIONS) {
    const error = `the reply was still cut off ${by} after ${CONTINUATIONS} requests to continue; it ends there`
    ctx.emit({
      kind: 'notice',
      text: `The reply was still cut off ${by} after ${CONTINUATIONS} requests to continue; it ends there.`
    })
    return { exitReason: 'partial', finalText, error }
  }
  if (i + 1 >= host.maxIterations) {
    ctx.emit({
      kind: 'notice',
      text: `The reply was cut off ${by} and the turn is at its ${host.maxIterations} model calls; it ends there.`
    })
    return { exitReason: 'completed', finalText }
  }
  return undefined
}

/**
 * Arguments cut off mid-value: JSON that only lacks its end (json-prefix.ts) — not JSON written wrong, which the tool
 * runner answers with the parse error (a larger cap would not mend it), nor the marker of a call cut at
 * max_tool_args_chars.
 */
const cutArguments = (call: { arguments: string; cutFrom?: number }) =>
  call.cutFrom === undefined && cutOffJson(call.arguments)

function buildRequest(
  host: LoopHost,
  ctx: TurnContext,
  maxTokens?: number,
  scaffold: readonly AgentMessage[] = []
): ChatRequest {
  const conversation = host.sessionMessages.map((m) => (m === ctx.userMessage ? withMemory(m, ctx.memoryContext) : m))
  // an empty reply's prefill turns, this turn only
  return chatRequest(host, host.systemPromptText(), [...conversation, ...scaffold], maxTokens)
}

/**
 * The turn's user message with the recalled memory after the user's words, for this call only. A message with
 * images goes to the provider as its `parts` (not `content`), so the memory is appended there as a text part too.
 */
function withMemory(m: AgentMessage, memory: string): AgentMessage {
  if (!memory) return m
  const out: AgentMessage = { ...m, content: `${m.content ?? ''}\n\n${memory}` }
  if (m.parts?.length) out.parts = [...m.parts, { type: 'text', text: memory }]
  return out
}

/** The call's usage as the transcript reads it back (store/read-messages.ts), beside upstream's display keys. */
function usageMetadata(ctx: TurnContext): Record<string, unknown> | null {
  const c = ctx.lastCall
  if (!c) return null
  const u = c.usage
  return {
    usage: {
      tokens: {
        input: u?.inputTokens ?? 0,
        output: u?.outputTokens ?? 0,
        cacheRead: u?.cacheReadTokens ?? 0,
        cacheWrite: u?.cacheWriteTokens ?? 0,
        reasoning: u?.reasoningTokens ?? 0
      },
      costUsd: c.costUsd,
      costStatus: c.costStatus,
      model: c.model
    }
  }
}
