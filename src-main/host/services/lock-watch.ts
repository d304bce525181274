/**
 * Profiles a view of every profile was served without because another program held their state.db locked
 * (StoreRegistry `onLockedOut`: the Sessions list or search of all profiles, the rail). No read of such a profile
 * waits on the lock, so nothing else says when it goes: each is read again on a timer (one small read, with SQLite's
 * busy wait off, never sleeping on the loop) until it answers, and `onCleared` then names it once — the host says
 * `store.lockChanged` … `cleared`, and the renderer reads again the views that left it out.
 */
import { isBusy } from '../../store'

const PROBE_MS = 300

export class LockedOutWatch {
  private timers = new Map<string, NodeJS.Timeout>()
  private closed = false

  constructor(
    /** One read of the profile's state.db; throws SQLITE_BUSY while the lock holds. */
    private readonly probe: (profile: string) => void,
    private readonly onCleared: (profile: string) => void
  ) {}

  /** A view left `profile` out for a lock: watched until it can be read (once, however many views left it out). */
  add(profile: string): void {
    if (this.closed || this.timers.has(profile)) return
    this.schedule(profile)
  }

  private schedule(profile: string): void {
    const timer = setTimeout(() => {
      this.timers.delete(profile)
      if (this.closed) return
      try {
        this.probe(profile)
      } catch (err) {
        if (isBusy(err)) return this.schedule(profile)
        // another failure (the profile gone, the file unreadable now): the lock is not what keeps it out any more
      }
      this.onCleared(profile)
    }, PROBE_MS)
    timer.unref()
    this.timers.set(profile, timer)
  }

  close(): void {
    this.closed = true
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
  }
}
