import type { Logger } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'

/** What saves a notice into the conversation's live tip (`tip`): the message it appended, null when none. */
type SaveNotice = (tip: string) => Promise<{ messageId: number; text: string } | null>

/** The gateway's `deliverSaved`: saves the notice holding the conversation's turn slot, then runs its turn. */
type DeliverSaved = (input: { profile: string; sessionId: string; save: SaveNotice }) => Promise<unknown>

/**
 * The queue between what saves completion notices (delegation, the terminal's process notices) and the gateway that
 * runs them as follow-up turns. Both sides depend on it and it depends on neither, so it is made first and handed to
 * each: the notice savers get it when they are made, and the gateway gets it as an option and becomes its runner in
 * its own constructor (`runWith`, the gateway's FollowUpRunner). The graph is built in one pass with no step that
 * closes a cycle afterwards; a notice queued while the graph is still being built waits for the runner.
 */
export class FollowUpPort {
  private startRunner: (deliverSaved: DeliverSaved) => void = () => undefined
  private readonly runner = new Promise<DeliverSaved>((resolve) => (this.startRunner = resolve))
  private hasRunner = false

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

  /** The gateway's side: called once, from the constructor of the gateway this queue was given to. */
  runWith(deliverSaved: DeliverSaved): void {
    // Two gateways taking one queue would each run a share of its notices: a wiring mistake, said at once.
    if (this.hasRunner) throw new Error('the follow-up queue already has its gateway')
    this.hasRunner = true
    this.startRunner(deliverSaved)
  }

  /**
   * Saves a notice after the conversation's running turn and runs it as the next turn, no other turn in between
   * (the gateway holds the conversation while `save` appends). A one-shot host saves it at once and runs nothing: its
   * own turn is the one the notice's work exists for. Rejects when the notice was not saved (the caller keeps it);
   * a follow-up turn that cannot run is only logged, under `area`, naming `what` finished.
   */
  async saveAndRun(area: string, what: string, profile: string, sessionId: string, save: SaveNotice): Promise<void> {
    if (!this.opts.live) return void (await save(await this.opts.tipOf(profile, sessionId)))
    const deliverSaved = await this.runner
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
