import { useLocks } from '../stores/locks'
import { retryLockedReads } from '../stores/bridge'

/**
 * A profile's state.db that another program holds locked (its VACUUM, a long import, `sqlite3` in BEGIN EXCLUSIVE):
 * said as soon as the host's first read meets the lock, so the page is not just "Loading…" for the whole retry. The
 * page loads by itself when the lock goes; if the host gave up, a button reads it again. A state.db replaced under the
 * host (a restore) makes reads wait the same way for a moment; that is said as what it is, not as a lock.
 */
export function LockedBanner() {
  const locks = useLocks((s) => s.locks)
  const entries = Object.entries(locks)
  if (!entries.length) return null
  return (
    <div className="banner banner-warn" role="status" data-testid="locked-banner">
      {entries.map(([profile, lock]) => {
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
            key={profile}
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
                {whose} (state.db) was replaced, as when a backup is restored over it, and is being reopened — this page
                loads by itself in a moment.
              </>
            ) : (
              <>
                {whose} (state.db) is locked by another program. Retrying — this page loads by itself when that program
                lets go.
              </>
            )}
          </div>
        )
      })}
    </div>
  )
}
