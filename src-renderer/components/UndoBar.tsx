import { undoDelete, usePendingDelete } from '../stores/pending-delete'

/** "Deleted <title or N sessions> · Undo" while the delete waits out its undo window. */
export function UndoBar() {
  const pending = usePendingDelete((s) => s.pending)
  if (!pending) return null
  return (
    <div className="undo-bar" role="status" data-testid="undo-delete-bar">
      <span>Deleted {pending.label}.</span>
      <button className="small primary" onClick={undoDelete} data-testid="undo-delete">
        Undo
      </button>
    </div>
  )
}
