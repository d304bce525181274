// Upstream's turn-completion explainer gate replayed on Caduceus's ends (test/fixtures/upstream/turn-explainer,
// scripts/golden/turn_explainer.py): for each reply and exit reason, whether upstream keeps the reply, replaces it with
// its explanation or puts the explanation after it, with the setting on and off. Caduceus's own words are checked only
// for what they must say.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EMPTY_SENTINEL, NO_REPLY_TEXT } from './empty-reply'
import { explainEnding } from './turn-explainer'

type TurnEnding = Parameters<typeof explainEnding>[0]

const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/turn-explainer/golden.json'), 'utf8')
) as { endings: Array<{ reply: string; reason: string; interrupted: boolean; on: string; off: string }> }

/** Upstream's exit reason as the end Caduceus's loop reports; null for an end Caduceus has no counterpart of. */
function ending(reply: string, reason: string, interrupted: boolean): TurnEnding | null {
  const base = { finalText: reply, maxIterations: 5 }
  if (interrupted) return { ...base, exitReason: 'interrupted' }
  if (reason.startsWith('max_iterations_reached')) return { ...base, exitReason: 'max_iterations' }
  if (reason === 'empty_response_exhausted') return { ...base, exitReason: 'completed', unanswered: true }
  if (reason.startsWith('text_response')) return { ...base, exitReason: 'completed' }
  return null // partial_stream_recovery: Caduceus asks the model to continue a dropped stream instead
}

describe('turn-completion explainer, as upstream gates it', () => {
  it.each(golden.endings.map((e) => [`${e.reason} ${JSON.stringify(e.reply)}`, e] as const))('%s', (_, e) => {
    const end = ending(e.reply, e.reason, e.interrupted)
    if (!end) return
    for (const mode of ['on', 'off'] as const) {
      const got = explainEnding(end, mode)
      const outcome = got === e.reply ? 'kept' : got.startsWith(`${e.reply.trim()}\n\n`) ? 'appended' : 'replaced'
      expect([mode, outcome]).toEqual([mode, e[mode]])
    }
  })

  it('says what ended the turn: the iteration limit with its number, or nothing shown after every retry', () => {
    const limit = explainEnding({ exitReason: 'max_iterations', finalText: '', maxIterations: 7 }, 'on')
    expect(limit).toMatch(/all 7 of its model calls/)
    const unanswered = {
      exitReason: 'completed',
      finalText: EMPTY_SENTINEL,
      unanswered: true,
      maxIterations: 7
    } as const
    expect(explainEnding(unanswered, 'on')).toBe(NO_REPLY_TEXT)
    expect(explainEnding(unanswered, 'off')).toBe(EMPTY_SENTINEL)
    // a cron run reads NO_REPLY_TEXT as its empty reply and delivers anything else: an explanation alone is kept out
    // of it, a fragment with its explanation is delivered whole (upstream's cron drops only the explanation alone)
    expect(explainEnding(unanswered, 'cron')).toBe(NO_REPLY_TEXT)
    expect(explainEnding({ exitReason: 'max_iterations', finalText: '', maxIterations: 7 }, 'cron')).toBe('')
    const fragment = { exitReason: 'max_iterations', finalText: 'Checking the', maxIterations: 7 } as const
    expect(explainEnding(fragment, 'cron')).toBe(explainEnding(fragment, 'on'))
    expect(explainEnding(fragment, 'cron')).toMatch(/^Checking the\n\nNo final answer/)
  })

  it("a cron run drops an answer that is only the explanation, but keeps one after a fragment (upstream's cron)", () => {
    // cron/scheduler.py run_job: a reply equal to the explanation is emptied; a fragment with it after is delivered
    const fragment = { exitReason: 'max_iterations', finalText: 'The', maxIterations: 7 } as const
    expect(explainEnding(fragment, 'cron')).toMatch(/^The\n\n.*all 7 of its model calls/)
    // with the setting off a cron run's turn is explained as any other ('off'): the bare fragment, as interactively
    expect(explainEnding(fragment, 'off')).toBe('The')
    expect(explainEnding({ ...fragment, finalText: '' }, 'off')).toBe('')
    const unanswered = {
      exitReason: 'completed',
      finalText: EMPTY_SENTINEL,
      unanswered: true,
      maxIterations: 7
    } as const
    expect(explainEnding(unanswered, 'off')).toBe(EMPTY_SENTINEL) // upstream's cron delivers "(empty)", run ok
  })
})
