import type { Logger } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'

/** A saved completion notice (background delegation, finished process) that becomes the session's next turn. */
export interface FollowUp {
  /** Log area and what finished, for the warning when the turn cannot run. */
  area: string
  what: string
  profile: string
  sessionId: string
  text: string
  savedMessageId: number
}

/** The gateway's `deliver`: one message (the notice) was appended by this process, so it re-baselines past it. */
type DeliverTurn = (input: {
  profile: string
  sessionId: string
  text: string
  savedMessageId: number
  appended: number
}) => Promise<unknown>

/**
 * The port between what saves follow-up notices (delegation, the terminal's process registry) and the gateway that
 * runs them. The gateway is built after those (its agents use them), so it is connected last: construction order
 * stays one-way, and a notice that arrives before `connect` waits instead of reaching an unset variable.
 */
export class FollowUpPort {
  private connectTo: (deliver: DeliverTurn) => void = () => undefined
  private readonly target = new Promise<DeliverTurn>((resolve) => (this.connectTo = resolve))

  /** `live: false` (one-shot CLI hosts) runs no follow-up turns: the process exits after its own. */
  constructor(private readonly opts: { live: boolean; log: Logger }) {}

  connect(deliver: DeliverTurn): void {
    this.connectTo(deliver)
  }

  async send(f: FollowUp): Promise<void> {
    if (!this.opts.live) return
    try {
      const deliver = await this.target
      await deliver({
        profile: f.profile,
        sessionId: f.sessionId,
        text: f.text,
        savedMessageId: f.savedMessageId,
        appended: 1
      })
    } catch (err) {
      this.opts.log.warn(f.area, `could not run the follow-up turn for ${f.what}: ${errorMessage(err)}`)
    }
  }
}
