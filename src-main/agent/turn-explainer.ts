/**
 * config.yaml `display.turn_completion_explainer` (upstream's, default on): a turn that ends without a usable answer
 * says why, in place of the answer or after a fragment of one. Upstream's gate (golden: test/fixtures/upstream/
 * turn-explainer, scripts/golden/turn_explainer.py): a Stop never gets one; a reply that is empty (or upstream's
 * "(empty)" stand-in) is replaced by the explanation; a fragment of at most 24 characters without a closing mark is
 * kept with the explanation after a blank line; a real short answer ("Done.") and a longer reply stay as they are.
 * The ends it explains here: the iteration limit (the reply is the answer to the summary call made there,
 * limit-summary.ts, whose own stand-ins are long enough to stay as they are) and a model that sent nothing after every
 * retry. A reply still cut off by the output cap ends
 * upstream's turn before its explainer runs, so it gets none here either. Only the answer the caller gets changes:
 * the stored rows are the model's (upstream explains after saving the session too). The wording is Caduceus's own.
 */
import { EMPTY_SENTINEL, NO_REPLY_TEXT } from './empty-reply'
import type { ExitReason } from './types'

/**
 * `on` / `off`: the setting. `cron`: the setting on in a cron run, which delivers what the turn answers and reads an
 * empty reply or NO_REPLY_TEXT as "nothing" (cron/run-job.ts). Upstream's cron empties a reply that is only its
 * explanation and delivers one with the explanation after a fragment (cron/scheduler.py run_job; golden
 * cron-no-answer): so in a cron run an answer the explanation would replace is dropped (an unanswered turn ends with
 * NO_REPLY_TEXT), and a fragment keeps it. The setting off, a cron run gets the bare reply as any turn does (upstream
 * saves and delivers its "(empty)" stand-in).
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
  const cron = mode === 'cron'
  if (end.unanswered && cron) return NO_REPLY_TEXT
  // off: upstream's bare answer (an unanswered turn's is its "(empty)" stand-in, which the loop already answers)
  if (mode === 'off') return end.finalText
  const why = explanation(end)
  if (!why) return end.finalText
  const text = end.finalText.trim()
  // an answer that would be the explanation alone: a cron run's scheduler drops it, so the run reads as unanswered
  if (!text || text === EMPTY_SENTINEL) return cron ? '' : why
  const fragment = [...text].length <= FRAGMENT_MAX && !CLOSING.has(text.at(-1)!)
  return fragment ? `${text}\n\n${why}` : end.finalText
}
