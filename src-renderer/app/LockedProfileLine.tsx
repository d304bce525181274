import type { ProfileLock } from '../stores/locks'
import { retryLockedReads } from '../stores/bridge'

/**
 * One profile's line in the lock banner: its reads wait on another program's lock, or on its state.db being reopened
 * after it was replaced (a restore); or the host gave up on them (a Retry reads them again).
 */
export function LockedProfileLine({ profile, lock }: { profile: string; lock: ProfileLock }) {
  const whose =
    profile === 'all' ? (
      "A profile's session database"
    ) : (
      <>
        The session database of profile <strong>{profile}</strong>
      </>
    )
  return (
    <div
      data-testid="locked-profile"
      data-profile={profile}
      data-gave-up={lock.gaveUp}
      data-cause={lock.replaced ? 'replaced' : 'locked'}
    >
      {lock.gaveUp && lock.waiting === 0 ? (
        <>
          {whose} (state.db){' '}
          {lock.replaced
            ? 'was replaced (a backup restored over it) and could not be reopened in time.'
            : 'stayed locked by another program, and Caduceus stopped waiting for it.'}{' '}
          <button className="small" data-testid="locked-retry" onClick={() => void retryLockedReads()}>
            Retry
          </button>
        </>
      ) : lock.replaced ? (
        <>
          {whose} (state.db) was replaced, as when a backup is restored over it, and is being reopened — this page loads
          by itself in a moment.
        </>
      ) : (
        <>
          {whose} (state.db) is locked by another program. Retrying — this page loads by itself when that program lets
          go.
        </>
      )}
    </div>
  )
}
