import { useState } from 'react'

/** Cap from hermes-spec §1.8 (the store sanitises and enforces it too; this only stops the typing early). */
export const MAX_TITLE = 100

/** The session title as a heading with Rename: Enter saves, Escape cancels, empty clears back to the preview. */
export function TitleEditor({ title, onSave }: { title: string; onSave: (title: string | null) => Promise<boolean> }) {
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(title)
  const [saving, setSaving] = useState(false)
  if (!editing) {
    return (
      <>
        <h1 data-testid="session-title" title={title}>
          {title}
        </h1>
        <button
          className="small"
          onClick={() => {
            setDraft(title)
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
    // strip control characters the way the store does, so what you see is what is saved
    // eslint-disable-next-line no-control-regex
    const clean = draft
      .replace(/[\x00-\x1F\x7F]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
    const ok = await onSave(clean || null)
    setSaving(false)
    if (ok) setEditing(false)
  }
  return (
    <form
      className="title-edit"
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
    >
      <input
        autoFocus
        value={draft}
        maxLength={MAX_TITLE}
        aria-label="Session title"
        data-testid="session-title-input"
        disabled={saving}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault()
            e.stopPropagation()
            setEditing(false)
          }
        }}
      />
      <button type="submit" className="small primary" disabled={saving} data-testid="session-title-save">
        Save
      </button>
      <button type="button" className="small" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  )
}
