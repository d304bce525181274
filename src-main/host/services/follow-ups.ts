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

/** The gateway's `whenSessionIdle`: resolves once no turn runs on the session. */
type IdleWait = (profile: string, sessionId: string) => Promise<void>

/**
 * The port between what saves follow-up notices (delegation, the terminal's process registry) and the gateway that
 * runs them. The gateway is built after those (its agents use them), so it is connected last: construction order
 * stays one-way, and a notice that arrives before `connect` waits instead of reaching an unset variable.
 */
export class FollowUpPort {
  private connectTo: (gateway: { deliver: DeliverTurn; idle: IdleWait }) => void = () => undefined
  private readonly target = new Promise<{ deliver: DeliverTurn; idle: IdleWait }>(
    (resolve) => (this.connectTo = resolve)
  )

  /** `live: false` (one-shot CLI hosts) runs no follow-up turns: the process exits after its own. */
  constructor(private readonly opts: { live: boolean; log: Logger }) {}

  connect(deliver: DeliverTurn, idle: IdleWait): void {
    this.connectTo({ deliver, idle })
  }

  /**
   * Waits until no turn runs on the session, so a notice is saved after the running turn's last row. A one-shot
   * host runs no follow-up turns and does not wait: its own turn is the one the process exists for.
   */
  async settled(profile: string, sessionId: string): Promise<void> {
    if (!this.opts.live) return
    await (await this.target).idle(profile, sessionId)
  }

  async send(f: FollowUp): Promise<void> {
    if (!this.opts.live) return
    try {
      const { deliver } = await this.target
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
