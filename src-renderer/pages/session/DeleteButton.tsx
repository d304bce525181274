import { useState } from 'react'
import { navigate } from '../../app/router'
import { Dialog } from '../../components/Dialog'
import { deleteWithUndo, UNDO_MS } from '../../stores/pending-delete'

/** Delete with a confirmation and an undo window; children of the session are kept (detached), as the host does. */
export function DeleteButton({ profile, sessionId, title }: { profile: string; sessionId: string; title: string }) {
  const [confirm, setConfirm] = useState(false)
  return (
    <>
      <button className="small danger" onClick={() => setConfirm(true)} data-testid="session-delete">
        Delete
      </button>
      {confirm && (
        <Dialog
          title="Delete this session?"
          danger
          onClose={() => setConfirm(false)}
          testId="delete-dialog"
          footer={
            <>
              <button data-dialog-cancel onClick={() => setConfirm(false)}>
                Cancel
              </button>
              <button
                className="primary danger"
                data-testid="delete-confirm"
                onClick={() => {
                  setConfirm(false)
                  deleteWithUndo(profile, sessionId, title)
                  navigate('#/sessions')
                }}
              >
                Delete
              </button>
            </>
          }
        >
          <p>
            “{title}” and its messages will be removed from <strong>{profile}</strong>’s state.db. Delegated children
            and branches stay, detached.
          </p>
          <p className="muted small">You can undo for {UNDO_MS / 1000} seconds.</p>
        </Dialog>
      )}
    </>
  )
}
