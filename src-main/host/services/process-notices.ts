/**
 * A finished background process's notice, kept on disk until it is in the session. It is recorded in the profile's
 * `cad_pending_notices` the moment the process ends, and appended (deleting the record in the same transaction) once
 * the parent's turn is over, as the conversation's next turn. A host killed in between (a crash, kill -9 while the
 * parent's turn runs) leaves the record: the next host to start on the home appends it and runs its turn, as
 * delegations are restored from their table. Records belong to the host process that made them (pid and start
 * time): a host starting beside a live one never delivers that one's notices under its running turn.
 */
import { randomBytes } from 'node:crypto'
import type { Logger } from '@shared/contract/log'
import { errorMessage } from '@shared/contract/errors'
import { ownerIsGone, ownStartTime } from '../../delegation'
import { readRetrying, type SessionStore } from '../../store'
import { processCompletionMessage, type ProcessCompletion } from '../../tools'
import type { FollowUpPort } from './follow-ups'
import type { Services } from './services'

const AREA = 'terminal'

export class ProcessNotices {
  private readonly owner = { pid: process.pid, started: ownStartTime(), token: randomBytes(8).toString('hex') }
  /** Profiles this host recorded notices in (what it hands over on close). */
  private readonly recordedIn = new Set<string>()

  constructor(private readonly opts: { stores: Services['stores']; followUps: FollowUpPort; log: Logger }) {}

  /** A notify-enabled process ended by itself: recorded now, appended once the parent's turn is over. */
  async completed(c: ProcessCompletion): Promise<void> {
    const store = await readRetrying(() => this.opts.stores.get(c.profile))
    const msg = processCompletionMessage(c)
    this.recordedIn.add(c.profile)
    await store.write((tx) =>
      store.pendingNoticesRepo().record(tx, {
        noticeId: c.processId,
        sessionId: c.sessionId,
        ...msg,
        owner: this.owner,
        at: Date.now() / 1000
      })
    )
    await this.deliver(c.profile, store, c.processId, c.sessionId, msg.content)
  }

  /**
   * Start-up (a live host): every notice whose host is gone, or was handed over by a host that closed first, is
   * appended to its conversation and run as its next turn.
   */
  async restore(profile: string): Promise<number> {
    const store = await readRetrying(() => this.opts.stores.get(profile))
    const orphans = (await readRetrying(() => store.pendingNoticesRepo().pending())).filter(
      (n) => n.ownerPid === null || ownerIsGone(n.ownerPid, n.ownerStarted)
    )
    for (const n of orphans)
      this.deliver(profile, store, n.noticeId, n.sessionId, n.content).catch((err: unknown) =>
        this.opts.log.warn(AREA, `restoring the notice of ${n.noticeId} failed: ${errorMessage(err)}`)
      )
    return orphans.length
  }

  /** Closing: what this host recorded and has not appended goes to whichever host starts next (even in this process). */
  async close(): Promise<void> {
    for (const profile of this.recordedIn) {
      try {
        const store = this.opts.stores.get(profile)
        await store.write((tx) => store.pendingNoticesRepo().disown(tx, this.owner.token))
      } catch (err) {
        // the process ends next: its records are someone else's anyway
        this.opts.log.warn(AREA, `handing over pending notices of ${profile} failed: ${errorMessage(err)}`)
      }
    }
  }

  private deliver(profile: string, store: SessionStore, noticeId: string, sessionId: string, text: string) {
    return this.opts.followUps.saveAndRun(AREA, noticeId, profile, sessionId, async (tip) => {
      const messageId = await store.write((tx) => store.pendingNoticesRepo().append(tx, noticeId, tip))
      return messageId === null ? null : { messageId, text }
    })
  }
}
