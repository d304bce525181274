/**
 * A reply with nothing to show (no visible text, no tool calls), handled as upstream's loop handles it: right after a
 * tool round the model is nudged once (an "(empty)" assistant turn and a user line asking it to use the results, this
 * turn's requests only); a reply that only reasoned is asked again twice with an empty assistant turn after the
 * history, so the model goes on from its reasoning (upstream's thinking-only prefill; the reasoning itself is not sent
 * back); then, as for a reply with
 * nothing at all, the same request up to three more times. After that the turn ends with no answer: nothing is
 * stored for a reasoning-only reply, and an "(empty)" assistant row for a blank one (upstream's own rows); the
 * caller gets an explanation in place of the answer. Every attempt is one model call of the turn's budget.
 */
import type { AgentMessage } from './providers/types'

const PREFILLS = 2
const EMPTY_RETRIES = 3
/** How far back a tool result makes an empty reply a "gave up after its tools" one (upstream looks at the last 5). */
const RECENT = 5

/** The nudge after a tool round: Caduceus's own words (upstream's is prose, not a format the model relies on). */
export const AFTER_TOOLS_NUDGE =
  'Your reply after those tool calls was empty. Read the tool results above and carry on with the task.'

/** The stored stand-in for a blank reply after every retry (upstream stores the same). */
export const EMPTY_SENTINEL = '(empty)'

export { NO_REPLY_TEXT } from '@shared/contract/no-reply'

export type EmptyReplyStep =
  { kind: 'nudge' | 'prefill' | 'retry'; notice: string } | { kind: 'give_up'; storeSentinel: boolean }

export class EmptyReplies {
  private prefills = 0
  private retries = 0
  private nudged = false
  /** The turn's nudge and prefill turns: sent after the history on the next calls, never stored. */
  readonly scaffold: AgentMessage[] = []

  /** A reply with something to show: the counts start over and the scaffolding goes. */
  reset(): void {
    this.prefills = 0
    this.retries = 0
    this.nudged = false
    this.scaffold.length = 0
  }

  /**
   * What to do about an empty reply; `reasoned` when it carried reasoning (the provider's field or inline), `history`
   * the session's messages (a tool result among the last few, scaffolding counted, earns the nudge), `inlineThinking`
   * when that reasoning was inline.
   */
  next(reasoned: boolean, history: readonly AgentMessage[], inlineThinking = false): EmptyReplyStep {
    const recent = [...history, ...this.scaffold].slice(-RECENT)
    // A model still thinking inline (`<think>` in its text) is left to the prefill asks, as upstream leaves it.
    if (!this.nudged && !inlineThinking && recent.some((m) => m.role === 'tool')) {
      this.nudged = true
      this.scaffold.push({ role: 'assistant', content: EMPTY_SENTINEL }, { role: 'user', content: AFTER_TOOLS_NUDGE })
      return { kind: 'nudge', notice: 'The model replied with nothing after its tool calls; nudging it to go on.' }
    }
    if (reasoned && this.prefills < PREFILLS) {
      this.prefills++
      this.scaffold.push({ role: 'assistant', content: '' })
      return {
        kind: 'prefill',
        notice: `The model only reasoned, with no answer; asking it to go on (${this.prefills}/${PREFILLS}).`
      }
    }
    if (this.retries < EMPTY_RETRIES) {
      this.retries++
      return { kind: 'retry', notice: `The model's reply was empty; asking again (${this.retries}/${EMPTY_RETRIES}).` }
    }
    return { kind: 'give_up', storeSentinel: !reasoned }
  }
}
