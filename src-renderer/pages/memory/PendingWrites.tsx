import { useState } from 'react'
import type { PendingMemoryWrite } from '@shared/contract'
import { formatDateTime } from '../../lib/format'
import { decidePending, usePendingWrites } from '../../stores/memory'

type Staged = Exclude<PendingMemoryWrite, { problem: string }>

const FILE = { memory: 'MEMORY.md', user: 'USER.md' } as const
const VERB = { add: 'Add', replace: 'Replace', remove: 'Remove', batch: 'Apply' } as const

/** What the write would change, in full (entries are small: the user approves the text itself). */
function Change({ w }: { w: Staged }) {
  if (w.operations)
    return (
      <ol className="pending-ops">
        {w.operations.map((op, i) => (
          <li key={i}>
            <Op action={op.action} content={op.content} oldText={op.oldText} />
          </li>
        ))}
      </ol>
    )
  return <Op action={w.action} content={w.content ?? null} oldText={w.oldText ?? null} />
}

function Op({ action, content, oldText }: { action: string; content: string | null; oldText: string | null }) {
  return (
    <div className="pending-op">
      <span className="muted small">{action}</span>
      {action !== 'add' && oldText != null && (
        <p className="entry-text">
          <span className="muted">entry with: </span>
          {oldText}
        </p>
      )}
      {action !== 'remove' && content != null && <p className="entry-text">{content}</p>}
    </div>
  )
}

/**
 * The agent's memory writes staged for the user's approval (config.yaml's memory.write_approval), in upstream's
 * pending folder: each shown in full with Approve (applied to the file as upstream's approve applies it) and Reject
 * (dropped). A write the store refuses on approval (over the limit, no entry matched) stays, with the reason.
 */
export function PendingWrites({ profile, count }: { profile: string; count: number }) {
  const { items, error } = usePendingWrites(profile, count)
  const [busy, setBusy] = useState<string | null>(null)
  const [refused, setRefused] = useState<Record<string, string>>({})
  if (count === 0) return null
  const decide = (id: string, decision: 'approve' | 'reject') => {
    setBusy(id)
    void decidePending(profile, id, decision)
      .then((r) => setRefused(({ [id]: _, ...rest }) => (r.error ? { ...rest, [id]: r.error } : rest)))
      .finally(() => setBusy(null))
  }
  return (
    <section className="pending-writes" aria-labelledby="memory-pending-title" data-testid="memory-pending">
      <h3 className="section-title small" id="memory-pending-title">
        {count === 1 ? '1 change' : `${count} changes`} by the agent {count === 1 ? 'waits' : 'wait'} for your approval
      </h3>
      <p className="muted small">
        memory.write_approval is on: nothing below is saved until you approve it (hermes shows the same list with{' '}
        <code>/memory pending</code>).
      </p>
      {error && (
        <p className="err-text" role="alert">
          {error}
        </p>
      )}
      <ul className="pending-list">
        {items.map((w) => (
          <li key={w.id} className="pending-item" data-testid="memory-pending-item" data-id={w.id}>
            {'problem' in w ? (
              <p className="err-text">
                Staged write {w.id} cannot be applied: {w.problem}
              </p>
            ) : (
              <>
                <p className="small">
                  <strong>
                    {VERB[w.action]} · {FILE[w.target]}
                  </strong>{' '}
                  <span className="muted">
                    {w.createdAt != null ? formatDateTime(w.createdAt / 1000) : 'time not recorded'} ·{' '}
                    {w.sessionId ? `session ${w.sessionId}` : 'session not recorded'}
                    {w.origin === 'background_review' ? ' · by the background review' : ''}
                  </span>
                </p>
                <Change w={w} />
              </>
            )}
            {refused[w.id] && (
              <p className="err-text small" role="alert" data-testid="memory-pending-refused">
                Not applied: {refused[w.id]}
              </p>
            )}
            <div className="pending-actions">
              {!('problem' in w) && (
                <button
                  className="primary small"
                  disabled={busy !== null}
                  aria-label={`Approve staged write ${w.id}`}
                  onClick={() => decide(w.id, 'approve')}
                >
                  Approve
                </button>
              )}
              <button
                className="small danger"
                disabled={busy !== null}
                aria-label={`Reject staged write ${w.id}`}
                onClick={() => decide(w.id, 'reject')}
              >
                Reject
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
