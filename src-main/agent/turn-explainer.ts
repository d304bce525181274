/**
 * config.yaml `display.turn_completion_explainer` (upstream's, default on): a turn that ends without a usable answer
 * says why, in place of the answer or after a fragment of one. Upstream's gate (golden: test/fixtures/upstream/
 * turn-explainer, scripts/golden/turn_explainer.py): a Stop never gets one; a reply that is empty (or upstream's
 * "(empty)" stand-in) is replaced by the explanation; a fragment of at most 24 characters without a closing mark is
 * kept with the explanation after a blank line; a real short answer ("Done.") and a longer reply stay as they are.
 * The ends it explains here: the iteration limit (Caduceus makes no summary call there, so the reply is the text of
 * the last call) and a model that sent nothing after every retry. A reply still cut off by the output cap ends
 * upstream's turn before its explainer runs, so it gets none here either. Only the answer the caller gets changes:
 * the stored rows are the model's (upstream explains after saving the session too). The wording is Caduceus's own.
 */
import { EMPTY_SENTINEL, NO_REPLY_TEXT } from './empty-reply'
import type { ExitReason } from './types'

/**
 * `on` / `off`: the setting. `cron`: the setting on for a cron run, whose scheduler drops a reply that is only an
 * explanation (upstream's cron compares the reply with its explainer's text; golden cron-no-answer): the turn explains
 * as `on`, except that an ending it would answer with the explanation alone keeps the bare reply, and an unanswered
 * turn ends with NO_REPLY_TEXT, which cron/run-job.ts reads as no reply. A fragment with its explanation is delivered
 * as upstream delivers it. The setting off, a cron run gets the bare reply (upstream delivers its "(empty)" stand-in).
 */
export type TurnExplainer = 'on' | 'off' | 'cron'

/** How a turn's loop ended, as far as the explanation goes. */
interface TurnEnding {
  exitReason: ExitReason
  finalText: string
  /** The model sent nothing to show after every retry (the loop's answer is then EMPTY_SENTINEL). */
  unanswered?: boolean
  /** The turn's model-call budget (named in the iteration-limit explanation). */
  maxIterations: number
}

/** Upstream treats a reply this short without a closing mark as a fragment, not an answer. */
const FRAGMENT_MAX = 24
const CLOSING = new Set(['.', '!', '?', '。', '！', '？', '`', ')'])

function explanation(end: TurnEnding): string | null {
  if (end.unanswered) return NO_REPLY_TEXT
  if (end.exitReason === 'max_iterations')
    return (
      `No final answer: the turn used all ${end.maxIterations} of its model calls (its iteration limit) before the ` +
      'model was done. Send "continue" to let it go on.'
    )
  return null
}

/** The answer the caller gets for `end`: the loop's text, or it with (or replaced by) why the turn ended there. */
export function explainEnding(end: TurnEnding, mode: TurnExplainer): string {
  // off: upstream's bare answer (an unanswered turn's is its "(empty)" stand-in, which the loop already answers)
  if (mode === 'off') return end.finalText
  const why = explanation(end)
  if (!why) return end.finalText
  const text = end.finalText.trim()
  if (!text || text === EMPTY_SENTINEL) return mode === 'cron' && !end.unanswered ? end.finalText : why
  const fragment = [...text].length <= FRAGMENT_MAX && !CLOSING.has(text.at(-1)!)
  return fragment ? `${text}\n\n${why}` : end.finalText
}
