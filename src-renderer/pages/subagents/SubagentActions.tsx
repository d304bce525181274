import { useState } from 'react'
import type { Subagent } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { FollowUpDialog } from './FollowUpDialog'
import { TombstoneDialog } from './TombstoneDialog'

/** Open / Follow up / Tombstone for one child; follow-up needs a live or retained child. */
export function SubagentActions({ s }: { s: Subagent }) {
  const [dialog, setDialog] = useState<'followup' | 'tombstone' | null>(null)
  const canFollow = s.state === 'retained' || s.state === 'running'
  return (
    <span className="actions">
      <a className="btn small" href={sessionHref(s.profile, s.childSessionId)} data-testid="subagent-open">
        Open
      </a>
      <button
        className="small"
        disabled={!canFollow}
        onClick={() => setDialog('followup')}
        data-testid="followup-open"
        title={canFollow ? 'Send a follow-up message' : `Not addressable (${s.state})`}
      >
        Follow up
      </button>
      <button
        className="small danger"
        disabled={s.state !== 'retained'}
        onClick={() => setDialog('tombstone')}
        data-testid="tombstone-open"
        title={s.state === 'retained' ? 'Retire this child' : 'Only retained children can be tombstoned'}
      >
        Tombstone
      </button>
      {dialog === 'followup' && <FollowUpDialog child={s} onClose={() => setDialog(null)} />}
      {dialog === 'tombstone' && <TombstoneDialog child={s} onClose={() => setDialog(null)} />}
    </span>
  )
}
