import { useCallback, useEffect, useRef, useState } from 'react'
import { clearSentDraft, useDraft } from '../../lib/drafts'
import { editEntry, loadEntries, useMemoryEntries } from '../../stores/memory'
import { useEntryDrafts, type EntryDraft } from './entry-draft'
import { PendingWrites } from './PendingWrites'
import { UsageMeter } from './UsageMeter'

/** Focus in a box just opened, the caret after its text (where typing goes on). */
const focusAtEnd = (el: HTMLTextAreaElement) => {
  if (el === document.activeElement) return
  el.focus()
  el.setSelectionRange(el.value.length, el.value.length)
}

/**
 * Built-in memory entries of ONE profile; every edit names that profile (disabled under All). An entry is edited in
 * place, as the session title is renamed: Edit opens its box focused; Escape (or Cancel) drops the change and shows
 * the entry as it was; ⌘/Ctrl+Enter (or Save) saves, Enter being a new line in an entry. Either way focus goes
 * back to that entry's Edit button rather than falling to the page. The Add box takes ⌘/Ctrl+Enter too.
 *
 * What is typed belongs to its profile and file, as a composer's draft belongs to its session, and each entry's box
 * to that entry: another profile or file shows its own boxes (never this text, where Save or Add would write it
 * there), opening a second entry's box keeps the first, and coming back shows the text again over its entry, marked
 * unsaved, rather than dropping it unasked. A page left or reloaded keeps it too.
 */
export function MemoryEntries({ profile }: { profile: string | null }) {
  const { target, entries, ready, readOnly, pending, usage, loading, error } = useMemoryEntries(profile)
  const file = target === 'memory' ? 'MEMORY.md' : 'USER.md'
  const fileKey = `${profile}/${target}`
  const addKey = profile ? `memory-add:${fileKey}` : null
  const [draft, setDraft] = useDraft(addKey)
  const boxes = useEntryDrafts(profile ? fileKey : null, entries, ready)
  // an edit's refusal, shown with the file it was for (not under another profile picked meanwhile)
  const [failed, setFailed] = useState<{ file: string; error: string } | null>(null)
  const inlineError = failed?.file === fileKey ? failed.error : null
  const list = useRef<HTMLOListElement>(null)
  // the entry whose box closed (or the place of one removed): an Edit button there takes focus once the entries are
  // shown again — after a Remove the next entry's Edit, never its Remove, so a second press cannot remove it too;
  // with no entry left, the Add box
  const closed = useRef<number | null>(null)
  // a box the user opens takes focus; one shown again (its profile picked again, the page come back to) leaves focus
  // where the user put it (the rail, a shortcut)
  const focusOpened = useRef(false)
  const focusBox = useCallback((el: HTMLTextAreaElement | null) => {
    if (!el || !focusOpened.current) return
    focusOpened.current = false
    focusAtEnd(el)
  }, [])
  const addBox = useRef<HTMLTextAreaElement>(null)
  const { ids } = boxes
  useEffect(() => {
    if (closed.current === null) return
    const i = Math.min(closed.current, entries.length - 1)
    closed.current = null
    // that entry's Edit, or its box where one is open there (another box's entry moved into the place)
    const there = list.current?.querySelector<HTMLElement>(
      `[data-index="${i}"] [data-testid="memory-entry-edit"], [data-index="${i}"] textarea`
    )
    ;(there ?? addBox.current)?.focus()
    // a box closing, whether or not it stood over its entry then (a Save's new text may be shown before it closes)
  }, [ids, entries])
  // a Remove on its way: every Remove waits for it (an entry is removed by its place, which the first one shifts)
  const [removing, setRemoving] = useState(false)
  const close = (box: EntryDraft) => {
    closed.current = box.index
    setFailed(null)
    boxes.drop(box)
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
    setFailed(r.ok ? null : { file: fileKey, error: r.error })
    if (r.ok) after?.()
    return r.ok
  }
  const add = () => {
    const content = draft
    if (content.trim())
      void run(editEntry({ op: 'add', profile, target, content }), () => clearSentDraft(addKey!, content))
  }
  const addOrphan = (box: EntryDraft) =>
    void run(editEntry({ op: 'add', profile, target, content: box.text }), () => boxes.drop(box))
  const save = (box: EntryDraft) =>
    void run(
      editEntry({ op: 'replace', profile, target, index: box.index, expected: box.base, content: box.text }),
      () => close(box)
    )
  const remove = (index: number, text: string) => {
    // set before the reply: the entries without the removed one may be shown before it arrives
    closed.current = index
    setRemoving(true)
    void run(editEntry({ op: 'remove', profile, target, index, expected: text }))
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
      {/* a file the tool cannot read (not UTF-8) has no count the tool would give */}
      {usage && readOnly == null && <UsageMeter usage={usage} file={file} profile={profile} />}
      {error && (
        <div className="err-text" role="alert">
          {error}
        </div>
      )}
      <PendingWrites profile={profile} count={pending} />
      {readOnly && (
        <p className="err-text" role="status" data-testid="memory-entries-readonly">
          Read-only: {readOnly}
        </p>
      )}
      {boxes.orphans.map((box) => (
        <div className="entry-orphan" key={box.id} data-testid="memory-entry-orphan">
          <p className="entry-unsaved muted small" id={`memory-orphan-note-${box.id}`}>
            <span className="badge badge-warn">Unsaved</span> The entry this edit was typed for is no longer in {file}{' '}
            of {profile} as it was (changed or removed since). Add it as a new entry, or discard it.
          </p>
          <div className="entry-edit">
            <textarea
              aria-label={`Unsaved edit for ${file} of ${profile}`}
              aria-describedby={`memory-orphan-note-${box.id}`}
              value={box.text}
              rows={3}
              onChange={(e) => boxes.type(box, e.target.value)}
              data-testid="memory-orphan-input"
            />
            <button
              className="primary small"
              disabled={!box.text.trim()}
              onClick={() => addOrphan(box)}
              data-testid="memory-orphan-add"
            >
              Add as new
            </button>
            <button className="small" onClick={() => boxes.drop(box)} data-testid="memory-orphan-discard">
              Discard
            </button>
          </div>
        </div>
      ))}
      {loading && !shown.length ? (
        <p className="muted">Loading…</p>
      ) : !shown.length ? (
        <p className="muted">No entries.</p>
      ) : (
        <ol className="entries" ref={list}>
          {shown.map((text, i) => {
            const box = boxes.at(i)
            return (
              // keyed by place, not text: a saved entry keeps its element, so its Edit button (focused on save) stays
              <li key={i} data-testid="memory-entry" data-index={i}>
                {box ? (
                  <>
                    <div className="entry-edit">
                      <textarea
                        ref={focusBox}
                        aria-label={`Entry ${i + 1} of ${target === 'memory' ? 'MEMORY' : 'USER'}`}
                        aria-describedby={box.text !== box.base ? `memory-unsaved-note-${i}` : undefined}
                        value={box.text}
                        rows={3}
                        onChange={(e) => boxes.type(box, e.target.value)}
                        onKeyDown={(e) => {
                          if (e.key === 'Escape') {
                            e.preventDefault()
                            e.stopPropagation()
                            close(box)
                          } else if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
                            e.preventDefault()
                            save(box)
                          }
                        }}
                        data-testid="memory-entry-input"
                      />
                      <button className="primary small" data-testid="memory-entry-save" onClick={() => save(box)}>
                        Save
                      </button>
                      <button className="small" onClick={() => close(box)} data-testid="memory-entry-cancel">
                        Cancel
                      </button>
                    </div>
                    {box.text !== box.base && (
                      // under the box (which stays put as typing starts), while it is so: the text outlives a profile
                      // switch and the page
                      <p
                        className="entry-unsaved muted small"
                        id={`memory-unsaved-note-${i}`}
                        data-testid="memory-entry-unsaved"
                      >
                        <span className="badge badge-warn">Unsaved</span> Save writes it to {file} of {profile}; Cancel
                        drops it.
                      </p>
                    )}
                  </>
                ) : (
                  <>
                    <span className="entry-text">{text}</span>
                    {readOnly == null && (
                      <span className="actions">
                        <button
                          className="small"
                          onClick={() => {
                            focusOpened.current = true
                            boxes.open(i, text)
                          }}
                          data-testid="memory-entry-edit"
                        >
                          Edit
                        </button>
                        <button
                          className="small danger"
                          disabled={removing}
                          onClick={() => remove(i, text)}
                          data-testid="memory-entry-remove"
                        >
                          Remove
                        </button>
                      </span>
                    )}
                  </>
                )}
              </li>
            )
          })}
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
