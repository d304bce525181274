import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { useEntryDrafts } from './entry-draft'

type EntryDrafts = ReturnType<typeof useEntryDrafts>

/** The boxes of one file as the entries panel sees them over `entries`. */
function boxesOf(fileKey: string, entries: string[], ready = true): EntryDrafts {
  let out!: EntryDrafts
  function Probe() {
    out = useEntryDrafts(fileKey, entries, ready)
    return null
  }
  renderToString(createElement(Probe))
  return out
}

/** The entries with a box open over them. */
const placesOf = (fileKey: string, entries: string[]) => {
  const boxes = boxesOf(fileKey, entries)
  return entries.flatMap((_, i) => (boxes.at(i) ? [i] : []))
}

describe('memory entry boxes', () => {
  it("belong to their profile's file and follow their entry when another process moves it", () => {
    const entries = ['a', 'b', 'c']
    boxesOf('research/memory', entries).open(1, 'b')
    boxesOf('research/memory', entries).type(boxesOf('research/memory', entries).at(1)!, 'b, edited')
    expect(boxesOf('research/memory', entries).at(1)).toMatchObject({ base: 'b', text: 'b, edited' })
    // another profile, or the other file of this one, has boxes of its own
    expect(placesOf('work/memory', entries)).toEqual([])
    expect(placesOf('research/user', entries)).toEqual([])
    // upstream's memory tool puts an entry first: the box stands over its entry, not over the place it had
    const moved = ['z', 'a', 'b', 'c']
    expect(boxesOf('research/memory', moved).at(1)).toBeUndefined()
    expect(boxesOf('research/memory', moved).at(2)).toMatchObject({ base: 'b', text: 'b, edited' })
    // a second box keeps the first
    boxesOf('research/memory', moved).open(0, 'z')
    expect(placesOf('research/memory', moved)).toEqual([0, 2])
    boxesOf('research/memory', moved).drop(boxesOf('research/memory', moved).at(0)!)
    expect(placesOf('research/memory', moved)).toEqual([2])
  })

  it('keep a changed box whose entry is gone as an orphan, once the entries are read; an unchanged one has nothing to keep', () => {
    const entries = ['a', 'b', 'c']
    boxesOf('lab/memory', entries).open(0, 'a')
    boxesOf('lab/memory', entries).open(1, 'b')
    boxesOf('lab/memory', entries).type(boxesOf('lab/memory', entries).at(1)!, 'b, edited')
    const changed = ['A', 'B', 'c']
    expect(placesOf('lab/memory', changed)).toEqual([])
    expect(boxesOf('lab/memory', changed).orphans).toEqual([expect.objectContaining({ text: 'b, edited' })])
    // still loading: no word yet on where a box stands
    expect(boxesOf('lab/memory', [], false).orphans).toEqual([])
    // the unchanged box on 'a' goes with the next box opened; the orphan stays
    boxesOf('lab/memory', changed).open(2, 'c')
    expect(placesOf('lab/memory', entries)).toEqual([1, 2])
    expect(boxesOf('lab/memory', changed).orphans).toHaveLength(1)
  })
})
