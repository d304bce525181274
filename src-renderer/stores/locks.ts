import { create } from 'zustand'
import type { EventPayload, ProfileProblem } from '@shared/contract'
import { queryClient } from './server'

/** A profile whose state.db another program holds locked, as the host's reads met it ('all': a read over every profile). */
export interface ProfileLock {
  /** Reads of it waiting now (the host retries each on timers). */
  waiting: number
  /** A read gave up on it (the lock outlasted the host's retry): the page needs a retry by hand. */
  gaveUp: boolean
  /**
   * What the last read that began to wait met: not another program's lock but its state.db replaced under the host (a
   * backup restored over it), reopened once the old file's -wal/-shm are dealt with.
   */
  replaced: boolean
}

export const useLocks = create<{ locks: Record<string, ProfileLock> }>()(() => ({ locks: {} }))

/** A read began or ended waiting on another program's lock or a replaced state.db (host event `store.lockChanged`). */
export function applyStoreLock(e: EventPayload<'store.lockChanged'>): void {
  useLocks.setState((s) => {
    const locks = { ...s.locks }
    const was = locks[e.profile] ?? { waiting: 0, gaveUp: false, replaced: false }
    const replaced = e.cause === 'replaced'
    if (e.state === 'waiting') locks[e.profile] = { waiting: was.waiting + 1, gaveUp: false, replaced }
    // a read answered after the wait: the lock is gone, whatever an earlier read gave up on
    else if (e.state === 'cleared') delete locks[e.profile]
    else locks[e.profile] = { waiting: Math.max(0, was.waiting - 1), gaveUp: true, replaced }
    return { locks }
  })
}

/** Forget what is known of locks (a reconnect: the host's reads of the old connection are gone; a retry by hand). */
export function clearLocks(): void {
  useLocks.setState({ locks: {} })
}

/**
 * A profile's lock went (`store.lockChanged` … `cleared`). A view of every profile served while it was locked left it
 * out and named it (the list or search of all profiles, Costs, Subagents: its `unavailable`), and no read of it
 * waited: each such view is read again — the one on screen now, the others when they are shown again.
 */
export function readAgainLeftOut(profile: string): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (q) =>
      (q.state.data as { unavailable?: ProfileProblem[] } | undefined)?.unavailable?.some(
        (u) => u.profile === profile
      ) === true
  })
}
