/**
 * "Prune…" on the Sessions page: upstream's prune through the same `sessions.prune` request the CLI sends, so
 * the selection is the CLI's (ended sessions started before the cutoff, with the chosen filters). Preview is its
 * dry run listing what would go; Delete sends the very same filters without it.
 */
import { useState } from 'react'
import type { PruneFilterInput, SessionPruneResult } from '@shared/contract'
import { getApi } from '../../api'
import { Dialog } from '../../components/Dialog'
import { RelTime } from '../../components/RelTime'
import { reloadSessions } from '../../stores/sessions'
import { reportError } from '../../stores/toasts'

const SHOWN = 50

function PruneDialog({ profile, onClose }: { profile: string; onClose: () => void }) {
  const [days, setDays] = useState('90')
  const [source, setSource] = useState('')
  const [withArchived, setWithArchived] = useState(false)
  const [preview, setPreview] = useState<SessionPruneResult | null>(null)
  const [done, setDone] = useState<SessionPruneResult | null>(null)
  const [busy, setBusy] = useState(false)
  const filter = (): PruneFilterInput => ({
    olderThanDays: Math.max(0, Number(days) || 0),
    ...(source.trim() ? { source: source.trim() } : {}),
    ...(withArchived ? { includeArchived: true } : {})
  })
  const call = async (dryRun: boolean) => {
    setBusy(true)
    try {
      const r = await getApi().call('sessions.prune', { profile, ...filter(), ...(dryRun ? { dryRun } : {}) })
      if (dryRun) setPreview(r)
      else {
        setDone(r)
        setPreview(null)
        void reloadSessions()
      }
    } catch (err) {
      reportError(err, 'Prune')
    } finally {
      setBusy(false)
    }
  }
  const candidates = preview?.candidates ?? []
  return (
    <Dialog
      title={`Prune sessions in ${profile}`}
      onClose={onClose}
      testId="prune-dialog"
      footer={
        <>
          <button data-dialog-cancel onClick={onClose}>
            {done ? 'Close' : 'Cancel'}
          </button>
          <button disabled={busy} data-testid="prune-preview" onClick={() => void call(true)}>
            Preview
          </button>
          <button
            className="primary danger"
            disabled={busy || !preview || candidates.length === 0}
            data-testid="prune-confirm"
            onClick={() => void call(false)}
          >
            Delete {candidates.length} session{candidates.length === 1 ? '' : 's'}
          </button>
        </>
      }
    >
      <p className="muted small">
        Ended sessions started more than the given days ago, as <code>hermes sessions prune</code> selects them; running
        sessions are never pruned, archived ones only when asked for, and children outside the selection are kept
        (detached).
      </p>
      <label className="field">
        Older than (days)
        <input
          type="number"
          min={0}
          value={days}
          data-testid="prune-days"
          onChange={(e) => {
            setDays(e.target.value)
            setPreview(null)
          }}
        />
      </label>
      <label className="field">
        Source (optional)
        <input
          value={source}
          placeholder="any"
          data-testid="prune-source"
          onChange={(e) => {
            setSource(e.target.value)
            setPreview(null)
          }}
        />
      </label>
      <label className="field-inline">
        <input
          type="checkbox"
          checked={withArchived}
          data-testid="prune-include-archived"
          onChange={(e) => {
            setWithArchived(e.target.checked)
            setPreview(null)
          }}
        />
        Include archived sessions
      </label>
      {preview && (
        <div data-testid="prune-candidates">
          <p className="small" role="status">
            {candidates.length === 0
              ? 'Nothing matches.'
              : `${candidates.length} session${candidates.length === 1 ? '' : 's'} would be deleted`}
          </p>
          <ul className="small">
            {candidates.slice(0, SHOWN).map((c) => (
              <li key={c.id} data-testid="prune-candidate" data-session-id={c.id}>
                {c.title ?? c.id} · {c.source} · {c.messageCount} messages · started <RelTime at={c.startedAt} />
              </li>
            ))}
          </ul>
          {candidates.length > SHOWN && <p className="muted small">…and {candidates.length - SHOWN} more</p>}
        </div>
      )}
      {done && (
        <p className="small" role="status" data-testid="prune-done">
          Deleted {done.deleted} session{done.deleted === 1 ? '' : 's'}
          {done.detached ? `; ${done.detached} child session${done.detached === 1 ? '' : 's'} kept, detached` : ''}.
        </p>
      )}
    </Dialog>
  )
}

/** The Sessions page's "Prune…" button; a single profile only (prune acts on one home). */
export function PruneButton({ scope }: { scope: string }) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button
        className="small"
        data-testid="prune-open"
        disabled={scope === 'all'}
        title={scope === 'all' ? 'Choose a profile to prune' : `Prune old sessions in ${scope}`}
        onClick={() => setOpen(true)}
      >
        Prune…
      </button>
      {open && <PruneDialog profile={scope} onClose={() => setOpen(false)} />}
    </>
  )
}
