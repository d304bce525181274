import type { ProfileProblem } from '@shared/contract'

/**
 * Profiles the host could not read for a cross-profile view (a corrupt or locked state.db, …): each named with the
 * host's reason, so a total or a list served without them is never taken for the whole.
 */
export function UnreadableProfiles({
  problems,
  what
}: {
  problems: ProfileProblem[] | undefined
  /** What is served without them and its verb, as the sentence opens: "These totals leave out", "This list leaves out". */
  what: string
}) {
  if (!problems?.length) return null
  return (
    <div className="banner banner-warn" role="status" data-testid="unreadable-profiles">
      {what} {problems.length === 1 ? 'a profile' : `${problems.length} profiles`} that could not be read:
      <ProfileReasons items={problems} className="unreadable-list" itemTestId="unreadable-profile" />
    </div>
  )
}

/**
 * Profiles served with something to know about how they were read (a state.db written by a newer upstream schema:
 * shown as far as Caduceus understands it; a MEMORY.md / USER.md the agent's prompt goes without), each with the
 * host's words, above the list or results they are in.
 */
export function ProfileNotices({ notices }: { notices: ProfileProblem[] | undefined }) {
  if (!notices?.length) return null
  return (
    <div className="banner banner-warn" role="status" aria-label="Profile notices" data-testid="profile-notices">
      <ProfileReasons items={notices} className="profile-notices" itemTestId="profile-notice" />
    </div>
  )
}

/** Each profile named with the host's words for it. */
function ProfileReasons({
  items,
  className,
  itemTestId
}: {
  items: ProfileProblem[]
  className: string
  itemTestId: string
}) {
  return (
    <ul className={className}>
      {items.map((p, i) => (
        // A profile can have several notices (its state.db's, a memory file's): one item each.
        <li key={`${p.profile}:${i}`} data-testid={itemTestId} data-profile={p.profile}>
          <strong>{p.profile}</strong>: {p.reason}
        </li>
      ))}
    </ul>
  )
}

/** The one profile in scope could not be read: an error, not an empty page. */
export function ProfileUnreadable({ problem, what }: { problem: ProfileProblem; what: string }) {
  return (
    <div className="empty" role="alert" data-testid="profile-unreadable" data-profile={problem.profile}>
      Could not read the {what} of profile <strong>{problem.profile}</strong>: {problem.reason}
    </div>
  )
}

/** The problem that makes the whole scope unreadable: a single-profile scope whose profile the host could not read. */
export function scopeUnreadable(scope: string, problems: ProfileProblem[] | undefined): ProfileProblem | null {
  if (scope === 'all') return null
  return problems?.find((p) => p.profile === scope) ?? null
}
