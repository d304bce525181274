import { useState } from 'react'
import type { Subagent } from '@shared/contract'
import { Dialog } from '../../components/Dialog'
import { tombstone } from '../../stores/subagents'

/** Tombstoning retires a child for good (no more follow-ups); its transcript is kept. */
export function TombstoneDialog({
  child,
  onClose,
  onDone
}: {
  child: Subagent
  onClose: () => void
  onDone?: () => void
}) {
  const [busy, setBusy] = useState(false)
  const go = async () => {
    setBusy(true)
    const ok = await tombstone(child.profile, child.childId)
    setBusy(false)
    if (ok) {
      onDone?.()
      onClose()
    }
  }
  return (
    <Dialog
      title="Tombstone subagent?"
      onClose={onClose}
      testId="tombstone-dialog"
      danger
      footer={
        <>
          <button onClick={onClose} data-testid="tombstone-cancel" data-dialog-cancel>
            Cancel
          </button>
          <button className="primary danger" onClick={() => void go()} disabled={busy} data-testid="tombstone-confirm">
            {busy ? 'Tombstoning…' : 'Tombstone'}
          </button>
        </>
      }
    >
      <p>
        <span className="mono">{child.childId}</span> will no longer accept follow-ups. Its transcript stays readable.
      </p>
      <p className="muted clamp-2">{child.goal}</p>
    </Dialog>
  )
}
