import { useEffect, useRef, useState } from 'react'
import { editEntry, loadEntries, useMemoryEntries } from '../../stores/memory'

/** Focus in a box just opened, the caret after its text (where typing goes on). */
const focusAtEnd = (el: HTMLTextAreaElement | null) => {
  if (!el || el === document.activeElement) return
  el.focus()
  el.setSelectionRange(el.value.length, el.value.length)
}

/**
 * Built-in memory entries of ONE profile; every edit names that profile (disabled under All). An entry is edited in
 * place, as the session title is renamed: Edit opens its box focused; Escape (or Cancel) drops the change and shows
 * the entry as it was; ⌘/Ctrl+Enter (or Save) saves, Enter being a new line in an entry. Either way focus goes
 * back to that entry's Edit button rather than falling to the page. The Add box takes ⌘/Ctrl+Enter too.
 */
export function MemoryEntries({ profile }: { profile: string | null }) {
  const { target, entries, readOnly, loading, error } = useMemoryEntries(profile)
  const [draft, setDraft] = useState('')
  // the box open, and whose entry it is: another profile or file picked meanwhile shows its own entries closed, never
  // this text in a box over its entry at the same place (where Save would write it)
  const [open, setEditing] = useState<{ profile: string; target: string; index: number; text: string } | null>(null)
  const editing = open && open.profile === profile && open.target === target ? open : null
  const [inlineError, setInlineError] = useState<string | null>(null)
  const list = useRef<HTMLOListElement>(null)
  // the entry whose box closed (or the place of one removed): an Edit button there takes focus once the entries are
  // shown again — after a Remove the next entry's Edit, never its Remove, so a second press cannot remove it too;
  // with no entry left, the Add box
  const closed = useRef<number | null>(null)
  const addBox = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    if (editing || closed.current === null) return
    const i = Math.min(closed.current, entries.length - 1)
    closed.current = null
    const edit = list.current?.querySelector<HTMLElement>(`[data-index="${i}"] [data-testid="memory-entry-edit"]`)
    ;(edit ?? addBox.current)?.focus()
  }, [editing, entries])
  // a Remove on its way: every Remove waits for it (an entry is removed by its place, which the first one shifts)
  const [removing, setRemoving] = useState(false)
  const close = (index: number) => {
    closed.current = index
    setInlineError(null)
    setEditing(null)
  }
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
  /** An edit's reply: its error shown (or cleared), `after` on success; whether it succeeded. */
  const run = async (p: ReturnType<typeof editEntry>, after?: () => void) => {
    const r = await p
    setInlineError(r.ok ? null : r.error)
    if (r.ok) after?.()
    return r.ok
  }
  const add = () => {
    if (draft.trim()) void run(editEntry({ op: 'add', profile, target, content: draft }), () => setDraft(''))
  }
  const save = (index: number, content: string) =>
    void run(editEntry({ op: 'replace', profile, target, index, content }), () => close(index))
  const remove = (index: number) => {
    // set before the reply: the entries without the removed one may be shown before it arrives
    closed.current = index
    setRemoving(true)
    void run(editEntry({ op: 'remove', profile, target, index }))
      .then((ok) => {
        if (!ok) closed.current = null
      })
      .finally(() => setRemoving(false))
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
        <ol className="entries" ref={list}>
          {shown.map((text, i) => (
            // keyed by place, not text: a saved entry keeps its element, so its Edit button (focused on save) stays
            <li key={i} data-testid="memory-entry" data-index={i}>
              {editing?.index === i ? (
                <div className="entry-edit">
                  <textarea
                    ref={focusAtEnd}
                    aria-label={`Entry ${i + 1} of ${target === 'memory' ? 'MEMORY' : 'USER'}`}
                    value={editing.text}
                    rows={3}
                    onChange={(e) => setEditing({ ...editing, text: e.target.value })}
                    onKeyDown={(e) => {
                      if (e.key === 'Escape') {
                        e.preventDefault()
                        e.stopPropagation()
                        close(i)
                      } else if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
                        e.preventDefault()
                        save(i, editing.text)
                      }
                    }}
                    data-testid="memory-entry-input"
                  />
                  <button
                    className="primary small"
                    data-testid="memory-entry-save"
                    onClick={() => save(i, editing.text)}
                  >
                    Save
                  </button>
                  <button className="small" onClick={() => close(i)} data-testid="memory-entry-cancel">
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
                        onClick={() => setEditing({ profile, target, index: i, text })}
                        data-testid="memory-entry-edit"
                      >
                        Edit
                      </button>
                      <button
                        className="small danger"
                        disabled={removing}
                        onClick={() => remove(i)}
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
            ref={addBox}
            rows={2}
            aria-label={`Add to ${target === 'memory' ? 'MEMORY' : 'USER'} of ${profile}`}
            placeholder={`Add to ${target === 'memory' ? 'MEMORY' : 'USER'} of ${profile}`}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            // as in an entry's box: ⌘/Ctrl+Enter adds, Enter is a new line
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
                e.preventDefault()
                add()
              }
            }}
            data-testid="memory-add-input"
          />
          <button className="primary small" disabled={!draft.trim()} data-testid="memory-add" onClick={add}>
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
