/**
 * The end of a turn that used its whole model-call budget (agent.max_turns, delegation.max_iterations), as upstream
 * ends it (golden: test/fixtures/upstream/iteration-limit, scripts/golden/iteration_limit.py): the model is asked once
 * more, with no tools offered, for a final answer. The request is a user row of our own after the conversation so
 * far; that row and the answer (finish_reason unset) are stored, so the next turn's history reads what the model
 * said. The call is not counted in the session's api_call_count or tokens (upstream's counters leave it out). An
 * empty answer is asked for once more (one that was only a reasoning block is not); still nothing, or a
 * failed call, and the turn answers (and stores) why there is no summary. That answer is long enough that the
 * turn-completion explainer leaves it alone; a short fragment of a summary gets the explanation after it
 * (turn-explainer.ts), as upstream's does. A Stop during the call keeps what was shown of the answer (upstream's
 * summary call cannot be stopped). The wording is Caduceus's own.
 */
import { callModel, PartialCallError } from './model-call'
import { cutReplyText } from './stopped-text'
import type { LoopHost, LoopOutcome } from './turn-loop'
import type { ChatRequest } from './providers/types'
import type { TurnContext } from './turn-context'
import { errorMessage } from '@shared/contract/errors'
import { STOPPED_REPLY } from '@shared/contract/stopped-turn'

/** The user row that asks for the summary (ours; "[System:" keeps it out of transcripts, as our other prompts). */
const LIMIT_SUMMARY_PROMPT =
  '[System: This turn has used all the model calls it may make, so no more tools can be run. Reply now, without ' +
  'calling any tool, with a final answer: what you found and did so far, and what is still left to do.]'

const noSummary = (max: number) =>
  `The turn used all ${max} of its model calls (its iteration limit), and when asked for a summary the model gave none. ` +
  'Send "continue" to let it go on.'
const failedSummary = (max: number, why: string) =>
  `The turn used all ${max} of its model calls (its iteration limit), and asking the model for a summary failed: ${why}`

/**
 * Asks for the final answer and returns the turn's end: `request()` builds the loop's own call on the conversation,
 * which then ends with the prompt; its tools are taken off here. A Stop during the call ends the turn as stopped.
 */
export async function summarizeAtLimit(
  host: LoopHost,
  ctx: TurnContext,
  request: () => ChatRequest,
  stopped: (finalText: string) => Promise<LoopOutcome>
): Promise<LoopOutcome> {
  const max = host.maxIterations
  ctx.emit({
    kind: 'notice',
    text: `Stopped after ${max} model calls (max iterations reached); asking the model for a final answer without tools.`
  })
  host.log?.warn('agent', `session ${host.sessionId}: iteration limit (${max}) reached; asking for a summary`)
  await host.save({ role: 'user', content: LIMIT_SUMMARY_PROMPT }, ctx, { displayKind: 'continuation_notice' })
  const end = async (text: string): Promise<LoopOutcome> => {
    await host.save({ role: 'assistant', content: text }, ctx)
    return { exitReason: 'max_iterations', finalText: text }
  }
  // A Stop before any of the answer was kept: the prompt must not stay the conversation's last row (the next message
  // would be read as part of it, tools forbidden), so it gets the stopped reply, as a Stop after a tool result does.
  const stop = async (shown: string, answered: boolean): Promise<LoopOutcome> => {
    if (!answered) await host.save({ role: 'assistant', content: STOPPED_REPLY }, ctx)
    return stopped(shown)
  }
  // Twice at most: an empty answer is asked for once more, as upstream asks.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (ctx.signal.aborted) return stop('', false)
    let text: string
    let thinkingOnly = false
    try {
      const req = { ...request(), tools: undefined }
      const response = await callModel(
        {
          client: host.getClient(),
          runtime: host.runtime,
          store: host.store,
          sessionId: host.sessionId,
          touch: host.touch,
          log: host.log,
          counted: false
        },
        req,
        ctx
      )
      text = response.text.trim()
      thinkingOnly = Boolean(response.inlineThinking)
    } catch (err) {
      if (ctx.signal.aborted) {
        // a Stop mid-answer: what the user saw of it is kept and is the answer, as the loop keeps a stopped reply
        const { shown, kept } =
          err instanceof PartialCallError ? cutReplyText(err.partialText) : { shown: '', kept: '' }
        if (kept) await host.save({ role: 'assistant', content: kept }, ctx, { finishReason: 'interrupted' })
        return stop(shown, Boolean(kept))
      }
      const why = err instanceof PartialCallError ? err.cause.message : errorMessage(err)
      host.log?.warn('agent', `session ${host.sessionId}: the iteration-limit summary failed: ${why}`)
      return end(failedSummary(max, why))
    }
    if (text) return end(text)
    // a reply that was only a reasoning block had something in it: upstream does not ask again for that one
    if (thinkingOnly) break
  }
  host.log?.warn('agent', `session ${host.sessionId}: no iteration-limit summary after two requests`)
  return end(noSummary(max))
}
