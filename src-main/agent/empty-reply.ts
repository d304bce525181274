/**
 * A reply with nothing to show (no visible text, no tool calls), handled as upstream's loop handles it: a reply that
 * only reasoned is asked again twice with an empty assistant turn after the history, so the model goes on from its
 * reasoning (upstream's thinking-only prefill; the reasoning itself is not sent back); then, as for a reply with
 * nothing at all, the same request up to three more times. After that the turn ends with no answer: nothing is
 * stored for a reasoning-only reply, and an "(empty)" assistant row for a blank one (upstream's own rows); the
 * caller gets an explanation in place of the answer. Every attempt is one model call of the turn's budget.
 */
import type { AgentMessage } from './providers/types'

const PREFILLS = 2
const EMPTY_RETRIES = 3

/** The stored stand-in for a blank reply after every retry (upstream stores the same). */
export const EMPTY_SENTINEL = '(empty)'

export const NO_REPLY_TEXT =
  'No reply: the model sent back nothing to show, even after being asked again. Send the message again, or try ' +
  'another model or provider.'

export type EmptyReplyStep =
  { kind: 'prefill'; notice: string } | { kind: 'retry'; notice: string } | { kind: 'give_up'; storeSentinel: boolean }

export class EmptyReplies {
  private prefills = 0
  private retries = 0
  /** The turn's prefill scaffolding: sent after the history on the next calls, never stored. */
  readonly scaffold: AgentMessage[] = []

  /** A reply with something to show: the counts start over and the scaffolding goes. */
  reset(): void {
    this.prefills = 0
    this.retries = 0
    this.scaffold.length = 0
  }

  /** What to do about an empty reply; `reasoned` when it carried reasoning (the provider's field or inline). */
  next(reasoned: boolean): EmptyReplyStep {
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
