import type { ReactNode } from 'react'
import { UNDO_MS } from '../stores/pending-delete'
import { Dialog } from './Dialog'

interface Props {
  title: string
  /** The confirm button's words, e.g. "Delete 3 sessions". */
  confirmLabel: string
  onConfirm: () => void
  onClose: () => void
  /** Test ids of the dialog and of its confirm button. */
  testId: string
  confirmTestId: string
  /** What goes: named by the caller (one session or a selection). */
  children: ReactNode
  /** Whether an Undo follows (sessions) or the delete is final (a cron job: upstream's file, upstream's scheduler). */
  undoable?: boolean
}

/** The one delete confirmation: starts on Cancel, says what goes and how long Undo is offered (or that none is). */
export function ConfirmDelete({
  title,
  confirmLabel,
  onConfirm,
  onClose,
  testId,
  confirmTestId,
  children,
  undoable = true
}: Props) {
  return (
    <Dialog
      title={title}
      danger
      onClose={onClose}
      testId={testId}
      footer={
        <>
          <button data-dialog-cancel onClick={onClose}>
            Cancel
          </button>
          <button
            className="primary danger"
            data-testid={confirmTestId}
            onClick={() => {
              onClose()
              onConfirm()
            }}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
      <p className="muted small">
        {undoable ? `You can undo for ${UNDO_MS / 1000} seconds.` : 'This cannot be undone.'}
      </p>
    </Dialog>
  )
}
