import { describe, expect, it } from 'vitest'
import { mergeByKey } from './normalize'

describe('mergeByKey', () => {
  it('keeps first-seen order and replaces duplicates in place', () => {
    const key = (x: { id: string }) => x.id
    const first = mergeByKey(
      [
        { id: 'a', v: 1 },
        { id: 'b', v: 1 }
      ],
      key
    )
    const next = mergeByKey(
      [
        { id: 'b', v: 2 },
        { id: 'c', v: 1 }
      ],
      key,
      first
    )
    expect(next.order).toEqual(['a', 'b', 'c'])
    expect(next.byKey.b).toEqual({ id: 'b', v: 2 })
    expect(first.order).toEqual(['a', 'b']) // the base is not mutated
  })
})
