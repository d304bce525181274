import { useLocks } from '../stores/locks'
import { LockedProfileLine } from './LockedProfileLine'

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
      {entries.map(([profile, lock]) => (
        <LockedProfileLine key={profile} profile={profile} lock={lock} />
      ))}
    </div>
  )
}
