import { useState } from 'react'
import type { Subagent } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { FollowUpDialog } from './FollowUpDialog'
import { TombstoneDialog } from './TombstoneDialog'

/**
 * Why an upstream-dispatched child offers no follow-up or tombstone: a follow-up resumes an agent this app holds as
 * a retained child, and upstream keeps none (its row names no child); a tombstone removes exactly that
 * addressability and would mean rewriting upstream's own row.
 */
const FOREIGN_FOLLOW_UP =
  'Dispatched by upstream Hermes: Caduceus holds no agent for it, so it cannot be messaged from here (continue in upstream Hermes)'
const FOREIGN_TOMBSTONE =
  "Dispatched by upstream Hermes: it is not in Caduceus's follow-up registry, so there is nothing to retire (its row stays upstream's)"
/** A delegate child session no delegation row names (a synchronous run, upstream's or Caduceus's own). */
const SESSION_ONLY =
  'A synchronous delegate run, shown from its child session: it was never retained, so no agent is kept to message or retire'

/** Read-only entries: from another host's delegation row, or (no delegation id) from a child session alone. */
const readOnlyWhy = (s: Subagent, other: string) => (s.delegationId === '' ? SESSION_ONLY : other)

/** Open / Follow up / Tombstone for one child; follow-up needs a live or retained child Caduceus dispatched. */
export function SubagentActions({ s }: { s: Subagent }) {
  const [dialog, setDialog] = useState<'followup' | 'tombstone' | null>(null)
  const canFollow = !s.foreign && (s.state === 'retained' || s.state === 'running')
  const canTombstone = !s.foreign && s.state === 'retained'
  return (
    <span className="actions">
      {s.childSessionId ? (
        <a className="btn small" href={sessionHref(s.profile, s.childSessionId)} data-testid="subagent-open">
          Open
        </a>
      ) : (
        <button
          className="small"
          disabled
          data-testid="subagent-open"
          title="No child session could be matched to this delegation with certainty"
        >
          Open
        </button>
      )}
      <button
        className="small"
        disabled={!canFollow}
        onClick={() => setDialog('followup')}
        data-testid="followup-open"
        title={
          canFollow
            ? 'Send a follow-up message'
            : s.foreign
              ? readOnlyWhy(s, FOREIGN_FOLLOW_UP)
              : `Not addressable (${s.state})`
        }
      >
        Follow up
      </button>
      <button
        className="small danger"
        disabled={!canTombstone}
        onClick={() => setDialog('tombstone')}
        data-testid="tombstone-open"
        title={
          canTombstone
            ? 'Retire this child'
            : s.foreign
              ? readOnlyWhy(s, FOREIGN_TOMBSTONE)
              : 'Only retained children can be tombstoned'
        }
      >
        Tombstone
      </button>
      {dialog === 'followup' && <FollowUpDialog child={s} onClose={() => setDialog(null)} />}
      {dialog === 'tombstone' && <TombstoneDialog child={s} onClose={() => setDialog(null)} />}
    </span>
  )
}
