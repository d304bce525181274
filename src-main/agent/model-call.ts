/**
 * One provider call: stream it (forwarding deltas), then price and record its usage on the session in
 * delta mode (hermes-spec §1.9). Text streamed so far is kept on the error so an interrupted call can
 * still persist what the user already saw.
 */
import { priceOf, UNPRICED } from './pricing'
import { ThinkScrubber, inlineReasoning, withoutThinkBlocks } from './think-scrub'
import { resolveCallLimits } from './providers/call-limits'
import {
  ProviderError,
  type ChatRequest,
  type ProviderClient,
  type ProviderResponse,
  type RuntimeConfig
} from './providers/types'
import type { TurnContext, Touch } from './turn-context'
import type { Logger } from '@shared/contract/log'
import type { AgentStore } from './types'
import { errorMessage } from '@shared/contract/errors'

export class PartialCallError extends Error {
  constructor(
    readonly cause: ProviderError,
    readonly partialText: string,
    readonly partialReasoning: string,
    /** How many tool calls had begun streaming when the call failed (none of them complete). */
    readonly toolCallsInFlight = 0
  ) {
    super(cause.message)
    this.name = 'PartialCallError'
  }
}

export interface ModelCallDeps {
  client: ProviderClient
  runtime: RuntimeConfig
  store: AgentStore
  sessionId: string
  touch: Touch
  log?: Logger | null
  /** `session_model_usage.task`: '' for the main loop, 'compression' for summaries. */
  task?: string
  /** Forward text/reasoning/tool-call deltas (off for internal calls such as summaries). */
  stream?: boolean
  /**
   * false: the call is left out of the turn's and the session's counters, as upstream leaves out its iteration-limit
   * summary call (limit-summary.ts).
   */
  counted?: boolean
}

export async function callModel(deps: ModelCallDeps, req: ChatRequest, ctx: TurnContext): Promise<ProviderResponse> {
  let text = ''
  let reasoning = ''
  let toolCalls = 0
  let response: ProviderResponse | null = null
  const cap = resolveCallLimits(deps.runtime.limits).maxReplyChars
  // Inline `<think>` blocks never reach the user as reply text: they stream on as reasoning (when the provider sends
  // none of its own), and leading newlines are dropped until the reply shows something, as upstream shows it.
  const scrub = new ThinkScrubber()
  let shown = false
  // After a tool round the first text with anything in it (think blocks included, as upstream tests the raw delta)
  // opens with a paragraph break, so the answer doesn't run on from the text before the tool call.
  const show = (part: { text: string; reasoning: string }, paragraph = false): void => {
    if (deps.stream === false) return
    const visible = paragraph ? `\n\n${part.text}` : shown ? part.text : part.text.replace(/^\n+/, '')
    if (part.reasoning && !reasoning) ctx.emit({ kind: 'reasoning', text: part.reasoning })
    if (visible) ctx.emit({ kind: 'text', text: visible })
    shown ||= !!visible
  }
  try {
    for await (const ev of deps.client.stream(req, ctx.signal)) {
      deps.touch(ev.type === 'done' ? 'model call finished' : 'receiving model stream', 'model')
      if (ev.type === 'text' || ev.type === 'reasoning') {
        const room = cap > 0 ? cap - text.length - reasoning.length : Infinity
        const piece = ev.text.length > room ? ev.text.slice(0, Math.max(0, room)) : ev.text
        if (ev.type === 'text') text += piece
        else reasoning += piece
        if (ev.type === 'text') {
          const paragraph = Boolean(ctx.streamBreak && piece.trim() && deps.stream !== false)
          if (paragraph) ctx.streamBreak = false
          show(scrub.feed(piece), paragraph)
        } else if (deps.stream !== false && piece) ctx.emit({ kind: ev.type, text: piece })
        if (piece.length < ev.text.length) {
          show(scrub.flush())
          // Over the cap: stop reading (leaving the loop cancels the request) and keep what fits, marked.
          const marker = `\n\n[reply truncated: the provider sent more than ${cap} characters (provider_limits.max_reply_chars)]`
          if (deps.stream !== false) ctx.emit({ kind: 'text', text: marker })
          deps.log?.warn('agent', `reply on session ${deps.sessionId} cut at ${cap} characters`)
          response = {
            text: withoutThinkBlocks(text) + marker,
            reasoning: reasoning || inlineReasoning(text),
            toolCalls: [],
            finishReason: 'length',
            usage: null,
            model: null,
            replyCapped: true
          }
          break
        }
      } else if (ev.type === 'tool_call_start') {
        toolCalls++
      } else if (ev.type === 'done') {
        // tool_call_start is not forwarded: the tool runner emits one `tool_call` delta per call, with its arguments.
        show(scrub.flush())
        response = withInlineReasoning(ev.response)
      }
    }
  } catch (err) {
    const pe =
      err instanceof ProviderError ? err : new ProviderError('network', `provider call failed: ${errorMessage(err)}`)
    throw new PartialCallError(pe, text, reasoning, toolCalls)
  }
  if (!response)
    throw new PartialCallError(
      new ProviderError('malformed', 'malformed provider reply: stream ended without a result'),
      text,
      reasoning,
      toolCalls
    )
  if (deps.counted !== false) await recordCall(deps, response, ctx)
  return response
}

/**
 * A reply carrying its reasoning inline keeps it as upstream stores it: the content without the blocks (trimmed), the
 * blocks' text as the reasoning unless the provider sent reasoning of its own. Neither goes back to the model as text.
 */
function withInlineReasoning(response: ProviderResponse): ProviderResponse {
  const text = withoutThinkBlocks(response.text)
  if (text === response.text) return response
  return {
    ...response,
    text: text.trim(),
    reasoning: response.reasoning || inlineReasoning(response.text),
    inlineThinking: true
  }
}

async function recordCall(deps: ModelCallDeps, response: ProviderResponse, ctx: TurnContext): Promise<void> {
  const { runtime } = deps
  const usage = response.usage
  const price = usage ? await priceOf(runtime, usage) : UNPRICED
  ctx.acct.addCall(usage, price)
  ctx.lastUsage = usage
  ctx.lastCall = { usage, costUsd: price.costUsd, costStatus: price.costStatus, model: runtime.model }
  try {
    await deps.store.recordUsage(deps.sessionId, {
      model: runtime.model,
      provider: runtime.provider,
      baseUrl: runtime.baseUrl,
      // no billingMode: upstream names one only for a subscription route ('subscription_included'), never the API mode
      task: deps.task ?? '',
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      cacheReadTokens: usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
      reasoningTokens: usage?.reasoningTokens ?? 0,
      apiCalls: 1,
      costUsd: price.costUsd,
      costStatus: price.costStatus,
      costSource: price.costSource,
      pricingVersion: price.pricingVersion
    })
  } catch (err) {
    // Losing a usage row must not lose the reply the user already saw.
    deps.log?.warn('agent', `recording usage for session ${deps.sessionId} failed: ${errorMessage(err)}`)
  }
}
