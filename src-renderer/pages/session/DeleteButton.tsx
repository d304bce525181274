import { useState } from 'react'
import { navigate } from '../../app/router'
import { ConfirmDelete } from '../../components/ConfirmDelete'
import { deleteWithUndo } from '../../stores/pending-delete'

/** Delete with a confirmation and an undo window; children of the session are kept (detached), as the host does. */
export function DeleteButton({ profile, sessionId, title }: { profile: string; sessionId: string; title: string }) {
  const [confirm, setConfirm] = useState(false)
  return (
    <>
      <button className="small danger" onClick={() => setConfirm(true)} data-testid="session-delete">
        Delete
      </button>
      {confirm && (
        <ConfirmDelete
          title="Delete this session?"
          confirmLabel="Delete"
          testId="delete-dialog"
          confirmTestId="delete-confirm"
          onClose={() => setConfirm(false)}
          onConfirm={() => {
            deleteWithUndo(profile, sessionId, title)
            navigate('#/sessions')
          }}
        >
          <p>
            “{title}” and its messages will be removed from <strong>{profile}</strong>’s state.db. Delegated children
            and branches stay, detached.
          </p>
        </ConfirmDelete>
      )}
    </>
  )
}
