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

/** What saves a notice into the conversation's live tip (`tip`): the message it appended, null when none. */
type SaveNotice = (tip: string) => Promise<{ messageId: number; text: string } | null>

/** The gateway's `deliverSaved`: saves the notice holding the conversation's turn slot, then runs its turn. */
type DeliverSaved = (input: { profile: string; sessionId: string; save: SaveNotice }) => Promise<unknown>

interface GatewayPort {
  deliver: DeliverTurn
  idle: IdleWait
  deliverSaved: DeliverSaved
}

/**
 * The port between what saves follow-up notices (delegation, the terminal's process registry) and the gateway that
 * runs them. The gateway is built after those (its agents use them), so it is connected last: construction order
 * stays one-way, and a notice that arrives before `connect` waits instead of reaching an unset variable.
 */
export class FollowUpPort {
  private connectTo: (gateway: GatewayPort) => void = () => undefined
  private readonly target = new Promise<GatewayPort>((resolve) => (this.connectTo = resolve))

  /** `live: false` (one-shot CLI hosts) runs no follow-up turns: the process exits after its own. */
  constructor(private readonly opts: { live: boolean; log: Logger }) {}

  connect(deliver: DeliverTurn, idle: IdleWait, deliverSaved: DeliverSaved): void {
    this.connectTo({ deliver, idle, deliverSaved })
  }

  /**
   * Waits until no turn runs on the session, so a notice is saved after the running turn's last row. A one-shot
   * host runs no follow-up turns and does not wait: its own turn is the one the process exists for.
   */
  async settled(profile: string, sessionId: string): Promise<void> {
    if (!this.opts.live) return
    await (await this.target).idle(profile, sessionId)
  }

  /**
   * Saves a notice after the conversation's running turn and runs it as the next turn, no other turn in between
   * (the gateway holds the conversation while `save` appends). A one-shot host saves it at once and runs nothing.
   * Rejects when the notice was not saved (the caller keeps it); a turn that cannot run is only logged.
   */
  async saveAndRun(area: string, what: string, profile: string, sessionId: string, save: SaveNotice): Promise<void> {
    if (!this.opts.live) return void (await save(sessionId))
    const { deliverSaved } = await this.target
    let saved = false
    try {
      await deliverSaved({
        profile,
        sessionId,
        save: async (tip) => {
          const r = await save(tip)
          saved = true
          return r
        }
      })
    } catch (err) {
      if (!saved) throw err
      this.opts.log.warn(area, `could not run the follow-up turn for ${what}: ${errorMessage(err)}`)
    }
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
