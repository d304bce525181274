import { useMemo } from 'react'
import { useDraft } from '../../lib/drafts'

/** An entry's box: the entry's place, its text when the box was opened, and what the box holds now. */
export interface EntryDraft {
  index: number
  base: string
  text: string
}

function parseDraft(raw: string): EntryDraft | null {
  if (!raw) return null
  try {
    const d = JSON.parse(raw) as Partial<EntryDraft>
    return typeof d.index === 'number' && typeof d.base === 'string' && typeof d.text === 'string'
      ? { index: d.index, base: d.base, text: d.text }
      : null
  } catch {
    return null // not one of ours (a hand-edited sessionStorage): no box to show
  }
}

/**
 * Where a box opened on `base` stands now: its own place while that still holds the entry, else wherever the entry
 * moved (another process removed or added one above it meanwhile); -1 once no entry reads so.
 */
const placeOf = (d: EntryDraft, entries: readonly string[]) =>
  entries[d.index] === d.base ? d.index : entries.indexOf(d.base)

/**
 * The box open in one profile's file (`fileKey`: profile/target; null under All), kept as a draft like a composer's:
 * per file, across a profile switch, a page left and a reload. `editing` is the box over its entry where that entry
 * stands now; `orphan` a box with changes whose entry is no longer in the file as it was (another program changed or
 * removed it): its text is kept, to be added as a new entry or dropped, never saved over whatever stands at its place.
 */
export function useEntryDraft(
  fileKey: string | null,
  entries: readonly string[],
  ready: boolean
): { editing: EntryDraft | null; orphan: EntryDraft | null; setEditing: (d: EntryDraft | null) => void } {
  const [raw, setRaw] = useDraft(fileKey ? `memory-edit:${fileKey}` : null)
  const open = useMemo(() => parseDraft(raw), [raw])
  const at = open ? placeOf(open, entries) : -1
  return {
    editing: open && at >= 0 ? { ...open, index: at } : null,
    orphan: open && at < 0 && ready && open.text !== open.base ? open : null,
    setEditing: (d) => setRaw(d ? JSON.stringify(d) : '')
  }
}
