import type { Logger } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'

/** What saves a notice into the conversation's live tip (`tip`): the message it appended, null when none. */
type SaveNotice = (tip: string) => Promise<{ messageId: number; text: string } | null>

/** The gateway's `deliverSaved`: saves the notice holding the conversation's turn slot, then runs its turn. */
type DeliverSaved = (input: { profile: string; sessionId: string; save: SaveNotice }) => Promise<unknown>

/**
 * The port between what saves completion notices (delegation, the terminal's process notices) and the gateway that
 * runs them as follow-up turns. The gateway is built after those (its agents use them), so it is connected last:
 * construction order stays one-way, and a notice that arrives before `connect` waits instead of reaching an unset
 * variable.
 */
export class FollowUpPort {
  private connectTo: (deliverSaved: DeliverSaved) => void = () => undefined
  private readonly target = new Promise<DeliverSaved>((resolve) => (this.connectTo = resolve))

  /**
   * `live: false` (one-shot CLI hosts) runs no follow-up turns: the process exits after its own. `tipOf` names the
   * segment a conversation continues in now (its compression tip), where a one-shot host saves a notice.
   */
  constructor(
    private readonly opts: {
      live: boolean
      log: Logger
      tipOf: (profile: string, sessionId: string) => Promise<string>
    }
  ) {}

  connect(deliverSaved: DeliverSaved): void {
    this.connectTo(deliverSaved)
  }

  /**
   * Saves a notice after the conversation's running turn and runs it as the next turn, no other turn in between
   * (the gateway holds the conversation while `save` appends). A one-shot host saves it at once and runs nothing: its
   * own turn is the one the notice's work exists for. Rejects when the notice was not saved (the caller keeps it);
   * a follow-up turn that cannot run is only logged, under `area`, naming `what` finished.
   */
  async saveAndRun(area: string, what: string, profile: string, sessionId: string, save: SaveNotice): Promise<void> {
    if (!this.opts.live) return void (await save(await this.opts.tipOf(profile, sessionId)))
    const deliverSaved = await this.target
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
}
