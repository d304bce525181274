import { useMemo } from 'react'
import { updateDraft, useDraft } from '../../lib/drafts'

/** An entry's box: which one (`id`), the entry's place, its text when the box was opened, what the box holds now. */
export interface EntryDraft {
  id: number
  index: number
  base: string
  text: string
}

const isDraft = (d: Partial<EntryDraft> | null): d is EntryDraft =>
  typeof d?.id === 'number' && typeof d.index === 'number' && typeof d.base === 'string' && typeof d.text === 'string'

function parseDrafts(raw: string): EntryDraft[] {
  if (!raw) return []
  try {
    const list = JSON.parse(raw) as unknown
    return Array.isArray(list) ? (list as Array<Partial<EntryDraft> | null>).filter(isDraft) : []
  } catch {
    return [] // not one of ours (a hand-edited sessionStorage): no box to show
  }
}

/**
 * Where a box opened on `base` stands now: its own place while that still holds the entry, else wherever the entry
 * moved (another process removed or added one above it meanwhile); -1 once no entry reads so.
 */
const placeOf = (d: EntryDraft, entries: readonly string[]) =>
  entries[d.index] === d.base ? d.index : entries.indexOf(d.base)

interface EntryDrafts {
  /** The box over entry `i`, at the place it stands now. */
  at: (i: number) => EntryDraft | undefined
  /** Boxes with changes whose entry is no longer in the file as it was (another program changed or removed it). */
  orphans: EntryDraft[]
  /** Which boxes are kept, as one value that typing leaves as it is (an effect's dependency). */
  ids: string
  open: (i: number, text: string) => void
  type: (d: EntryDraft, text: string) => void
  drop: (d: EntryDraft) => void
}

/**
 * The boxes open in one profile's file (`fileKey`: profile/target; null under All), each entry its own, kept as
 * drafts like a composer's: per file, across a profile switch, a page left and a reload. An orphan's text is kept to
 * be added as a new entry or dropped, never saved over whatever stands at its entry's old place.
 */
export function useEntryDrafts(fileKey: string | null, entries: readonly string[], ready: boolean): EntryDrafts {
  const key = fileKey ? `memory-edit:${fileKey}` : null
  const [raw] = useDraft(key)
  return useMemo(() => {
    const placed = new Map<number, EntryDraft>()
    const orphans: EntryDraft[] = []
    const kept = parseDrafts(raw)
    for (const d of kept) {
      const p = placeOf(d, entries)
      if (p >= 0 && !placed.has(p)) placed.set(p, { ...d, index: p })
      // the entries still loading say nothing of where a box stands; an unchanged box has nothing to keep
      else if (ready && d.text !== d.base) orphans.push(d)
    }
    const change = (fn: (list: EntryDraft[]) => EntryDraft[]) => {
      if (key) updateDraft(key, (now) => JSON.stringify(fn(parseDrafts(now))).replace(/^\[\]$/, ''))
    }
    return {
      at: (i) => placed.get(i),
      orphans,
      ids: kept.map((d) => d.id).join(','),
      open: (i, text) => {
        if (placed.has(i)) return
        change((list) => {
          // unchanged boxes whose entry is gone had nothing to keep: they go now
          const kept = list.filter((d) => d.text !== d.base || placeOf(d, entries) >= 0)
          return [...kept, { id: Math.max(0, ...kept.map((d) => d.id)) + 1, index: i, base: text, text }]
        })
      },
      // the place it stands now is kept, so a box that moved stays with its entry
      type: (d, text) => change((list) => list.map((x) => (x.id === d.id ? { ...x, index: d.index, text } : x))),
      drop: (d) => change((list) => list.filter((x) => x.id !== d.id))
    }
  }, [key, raw, entries, ready])
}
