import { useState } from 'react'
import { ConfirmDelete } from '../../components/ConfirmDelete'
import { exportRows, runBulk } from '../../stores/bulk-actions'
import { deleteManyWithUndo } from '../../stores/pending-delete'
import { clearSelection, useSelectedRows } from '../../stores/selection'

const plural = (n: number) => `${n} session${n === 1 ? '' : 's'}`

/** Count and actions for the selected rows; each action goes to every row's own profile. */
export function SelectionBar() {
  const rows = useSelectedRows()
  const [busy, setBusy] = useState(false)
  const [confirm, setConfirm] = useState(false)
  if (!rows.length) return null
  const run = async (fn: () => Promise<void>) => {
    setBusy(true)
    try {
      await fn()
    } finally {
      setBusy(false)
    }
  }
  const anyArchived = rows.some((r) => r.archived)
  const anyActive = rows.some((r) => !r.archived)
  const anyPinned = rows.some((r) => r.pinned)
  const anyUnpinned = rows.some((r) => !r.pinned)
  const profiles = [...new Set(rows.map((r) => r.profile))]
  return (
    <div className="selection-bar" role="region" aria-label="Selection" data-testid="selection-bar">
      <span className="selection-count" role="status" data-testid="selection-count">
        {rows.length} selected
      </span>
      {anyActive && (
        <button
          className="small"
          disabled={busy}
          data-testid="bulk-archive"
          onClick={() => void run(() => runBulk('archive', rows))}
        >
          Archive
        </button>
      )}
      {anyArchived && (
        <button
          className="small"
          disabled={busy}
          data-testid="bulk-unarchive"
          onClick={() => void run(() => runBulk('unarchive', rows))}
        >
          Unarchive
        </button>
      )}
      {anyUnpinned && (
        <button
          className="small"
          disabled={busy}
          data-testid="bulk-pin"
          onClick={() => void run(() => runBulk('pin', rows))}
        >
          Pin
        </button>
      )}
      {anyPinned && (
        <button
          className="small"
          disabled={busy}
          data-testid="bulk-unpin"
          onClick={() => void run(() => runBulk('unpin', rows))}
        >
          Unpin
        </button>
      )}
      <button
        className="small"
        disabled={busy}
        data-testid="bulk-export"
        title="The selected sessions as JSONL"
        onClick={() => void run(() => exportRows(rows))}
      >
        Export selected
      </button>
      <button
        className="small"
        disabled={busy}
        data-testid="bulk-export-md"
        title="The selected sessions as one Markdown file"
        onClick={() => void run(() => exportRows(rows, 'markdown'))}
      >
        Markdown
      </button>
      <button
        className="small"
        disabled={busy}
        data-testid="bulk-export-html"
        title="The selected sessions as one page to read in any browser"
        onClick={() => void run(() => exportRows(rows, 'html'))}
      >
        HTML
      </button>
      <button className="small danger" disabled={busy} data-testid="bulk-delete" onClick={() => setConfirm(true)}>
        Delete…
      </button>
      <button
        className="small link"
        data-testid="selection-clear"
        onClick={clearSelection}
        title="Clear the selection (Esc)"
      >
        Clear
      </button>
      {confirm && (
        <ConfirmDelete
          title={`Delete ${plural(rows.length)}?`}
          confirmLabel={`Delete ${plural(rows.length)}`}
          testId="bulk-delete-dialog"
          confirmTestId="bulk-delete-confirm"
          onClose={() => setConfirm(false)}
          onConfirm={() => {
            deleteManyWithUndo(
              rows.map((r) => ({ profile: r.profile, sessionId: r.id })),
              rows.length === 1 ? '1 session' : plural(rows.length)
            )
            clearSelection()
          }}
        >
          <p>
            {plural(rows.length)} and their messages will be removed from{' '}
            {profiles.length === 1 ? (
              <>
                <strong>{profiles[0]}</strong>’s state.db
              </>
            ) : (
              <>
                the state.db of {profiles.length} profiles ({profiles.join(', ')})
              </>
            )}
            . Subagent runs go with their parent; branches not selected stay, detached.
          </p>
        </ConfirmDelete>
      )}
    </div>
  )
}
