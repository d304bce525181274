import { describe, expect, it } from 'vitest'
import { applyClick } from './range-select'

const order = ['a', 'b', 'c', 'd', 'e', 'f']

describe('range selection', () => {
  /** The rows a shift-click on `target` selects, starting from nothing selected. */
  const range = (anchor: string | null, target: string) => [
    ...applyClick(new Set(), order, anchor, target, true).selected
  ]

  it('takes the rows between anchor and target, in either direction, inclusive', () => {
    expect(range('b', 'e')).toEqual(['b', 'c', 'd', 'e'])
    expect(range('e', 'b')).toEqual(['b', 'c', 'd', 'e'])
    expect(range('c', 'c')).toEqual(['c'])
  })

  it('falls back to the target alone without a usable anchor, and to nothing for an unknown target', () => {
    expect(range(null, 'd')).toEqual(['d'])
    expect(range('gone', 'd')).toEqual(['d'])
    expect(range('a', 'zz')).toEqual([])
  })

  it('click toggles one row; shift-click selects the range from the anchor', () => {
    let s = applyClick(new Set(), order, null, 'b', false)
    expect([...s.selected]).toEqual(['b'])
    s = applyClick(s.selected, order, s.anchor, 'd', true)
    expect([...s.selected].sort()).toEqual(['b', 'c', 'd'])
    expect(s.anchor).toBe('d')
    s = applyClick(s.selected, order, s.anchor, 'c', false)
    expect([...s.selected].sort()).toEqual(['b', 'd'])
  })

  it('shift-click on a selected row clears the range instead', () => {
    const s = applyClick(new Set(['a', 'b', 'c', 'd']), order, 'a', 'c', true)
    expect([...s.selected].sort()).toEqual(['d'])
  })

  it('uses the current order after the list re-sorted (anchor and target by key)', () => {
    const resorted = ['e', 'b', 'a', 'f', 'c', 'd']
    const s = applyClick(new Set(['b']), resorted, 'b', 'f', true)
    expect([...s.selected].sort()).toEqual(['a', 'b', 'f'])
  })
})
