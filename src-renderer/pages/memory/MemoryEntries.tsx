import { useState } from 'react'
import { editEntry, loadEntries, useMemoryEntries } from '../../stores/memory'

/** Built-in memory entries of ONE profile; every edit names that profile (disabled under All). */
export function MemoryEntries({ profile }: { profile: string | null }) {
  const { target, entries, readOnly, loading, error } = useMemoryEntries(profile)
  const [draft, setDraft] = useState('')
  const [editing, setEditing] = useState<{ index: number; text: string } | null>(null)
  const [inlineError, setInlineError] = useState<string | null>(null)
  const shown = entries

  if (!profile) {
    return (
      <section className="panel" data-testid="memory-entries">
        <h2 className="section-title">Built-in memory</h2>
        <p className="muted" data-testid="memory-entries-disabled">
          Select a profile in the rail to view and edit its memory. Edits are never applied across profiles.
        </p>
      </section>
    )
  }
  const run = async (p: ReturnType<typeof editEntry>, after?: () => void) => {
    const r = await p
    setInlineError(r.ok ? null : r.error)
    if (r.ok) after?.()
  }
  return (
    <section className="panel" data-testid="memory-entries" data-profile={profile}>
      <div className="panel-head">
        <h2 className="section-title">Built-in memory · {profile}</h2>
        <div className="seg">
          {(['memory', 'user'] as const).map((t) => (
            <button
              key={t}
              className={t === target ? 'active' : ''}
              onClick={() => void loadEntries(profile, t)}
              data-testid={`memory-target-${t}`}
            >
              {t === 'memory' ? 'MEMORY' : 'USER'}
            </button>
          ))}
        </div>
      </div>
      {error && (
        <div className="err-text" role="alert">
          {error}
        </div>
      )}
      {readOnly && (
        <p className="err-text" role="status" data-testid="memory-entries-readonly">
          Read-only: {readOnly}
        </p>
      )}
      {loading && !shown.length ? (
        <p className="muted">Loading…</p>
      ) : !shown.length ? (
        <p className="muted">No entries.</p>
      ) : (
        <ol className="entries">
          {shown.map((text, i) => (
            <li key={`${i}:${text.slice(0, 24)}`} data-testid="memory-entry" data-index={i}>
              {editing?.index === i ? (
                <div className="entry-edit">
                  <textarea
                    aria-label={`Entry ${i + 1} of ${target === 'memory' ? 'MEMORY' : 'USER'}`}
                    value={editing.text}
                    rows={3}
                    onChange={(e) => setEditing({ index: i, text: e.target.value })}
                    data-testid="memory-entry-input"
                  />
                  <button
                    className="primary small"
                    data-testid="memory-entry-save"
                    onClick={() =>
                      void run(editEntry({ op: 'replace', profile, target, index: i, content: editing.text }), () =>
                        setEditing(null)
                      )
                    }
                  >
                    Save
                  </button>
                  <button className="small" onClick={() => setEditing(null)}>
                    Cancel
                  </button>
                </div>
              ) : (
                <>
                  <span className="entry-text">{text}</span>
                  {readOnly == null && (
                    <span className="actions">
                      <button
                        className="small"
                        onClick={() => setEditing({ index: i, text })}
                        data-testid="memory-entry-edit"
                      >
                        Edit
                      </button>
                      <button
                        className="small danger"
                        onClick={() => void run(editEntry({ op: 'remove', profile, target, index: i }))}
                        data-testid="memory-entry-remove"
                      >
                        Remove
                      </button>
                    </span>
                  )}
                </>
              )}
            </li>
          ))}
        </ol>
      )}
      {readOnly == null && (
        <div className="entry-add">
          <textarea
            rows={2}
            aria-label={`Add to ${target === 'memory' ? 'MEMORY' : 'USER'} of ${profile}`}
            placeholder={`Add to ${target === 'memory' ? 'MEMORY' : 'USER'} of ${profile}`}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            data-testid="memory-add-input"
          />
          <button
            className="primary small"
            disabled={!draft.trim()}
            data-testid="memory-add"
            onClick={() => void run(editEntry({ op: 'add', profile, target, content: draft }), () => setDraft(''))}
          >
            Add
          </button>
        </div>
      )}
      {inlineError && (
        <div className="err-text" role="alert" data-testid="memory-edit-error">
          {inlineError}
        </div>
      )}
    </section>
  )
}
