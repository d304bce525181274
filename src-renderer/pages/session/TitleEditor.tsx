import { useEffect, useRef, useState } from 'react'
import { cleanTitle, MAX_TITLE_LENGTH } from '@shared/contract'

/** What a refused save says (in the box, not a toast), and where the session that holds the title is. */
export interface TitleRefusal {
  message: string
  other?: { href: string; title: string }
}

/**
 * The session title as a heading with Rename: Enter saves, Escape cancels (and stays on the session), empty clears
 * back to the preview. A refused title keeps the box open and focused, saying why in words (the other session by
 * its title, as a link), so the next key still edits or cancels.
 */
export function TitleEditor({
  title,
  onSave
}: {
  title: string
  onSave: (title: string | null) => Promise<true | TitleRefusal>
}) {
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(title)
  const [saving, setSaving] = useState(false)
  const [refused, setRefused] = useState<TitleRefusal | null>(null)
  const input = useRef<HTMLInputElement>(null)
  const renameBtn = useRef<HTMLButtonElement>(null)
  const wasEditing = useRef(false)
  useEffect(() => {
    // back on the Rename button after a save or a cancel, so focus never falls to the page (where Escape leaves the
    // session); the editor stays mounted across the rename (no key on the title), so this runs after a save too
    if (!editing && wasEditing.current) renameBtn.current?.focus()
    wasEditing.current = editing
  }, [editing])
  if (!editing) {
    return (
      <>
        <h1 data-testid="session-title" title={title}>
          {title}
        </h1>
        <button
          ref={renameBtn}
          className="small"
          onClick={() => {
            setDraft(title)
            setRefused(null)
            setEditing(true)
          }}
          data-testid="session-rename"
        >
          Rename
        </button>
      </>
    )
  }
  const save = async () => {
    setSaving(true)
    // cleaned as the store (and upstream) cleans it, so what you see is what is saved: a tab is a space
    const res = await onSave(cleanTitle(draft))
    setSaving(false)
    if (res === true) return setEditing(false)
    setRefused(res)
    input.current?.focus()
    input.current?.select()
  }
  const cancel = () => {
    setRefused(null)
    setEditing(false)
  }
  return (
    <>
      {/* the page keeps its one h1 while the box replaces the visible title */}
      <h1 className="sr-only">{title}</h1>
      <form
        className="title-edit"
        onSubmit={(e) => {
          e.preventDefault()
          if (!saving) void save()
        }}
      >
        <input
          ref={input}
          autoFocus
          value={draft}
          maxLength={MAX_TITLE_LENGTH}
          aria-label="Session title"
          aria-invalid={refused ? true : undefined}
          aria-describedby={refused ? 'title-refused' : undefined}
          data-testid="session-title-input"
          // read-only, not disabled, while saving: a disabled box drops focus to the page
          readOnly={saving}
          onChange={(e) => {
            setDraft(e.target.value)
            setRefused(null)
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault()
              e.stopPropagation()
              cancel()
            }
          }}
        />
        <button type="submit" className="small primary" disabled={saving} data-testid="session-title-save">
          Save
        </button>
        <button type="button" className="small" onClick={cancel}>
          Cancel
        </button>
        {refused && (
          <span id="title-refused" className="err-text small" role="alert" data-testid="session-title-refused">
            {refused.message}
            {refused.other && (
              <>
                {' '}
                <a href={refused.other.href} data-testid="session-title-holder">
                  Open “{refused.other.title}”
                </a>
              </>
            )}
          </span>
        )}
      </form>
    </>
  )
}
