import { describe, expect, it } from 'vitest'
import { bulkSummary, chunks } from './bulk-summary'

describe('bulkSummary', () => {
  it('says what happened to every session of the batch', () => {
    expect(bulkSummary('archive', [{ ok: true }, { ok: true }])).toEqual({
      kind: 'info',
      message: 'Archived 2 sessions'
    })
    expect(bulkSummary('pin', [{ ok: true }])).toEqual({ kind: 'info', message: 'Pinned 1 session' })
  })

  it('reports a partial failure with counts and the distinct reasons', () => {
    const r = bulkSummary('delete', [
      { ok: true },
      { ok: false, error: 'locked' },
      { ok: true },
      { ok: false, error: 'locked' },
      { ok: true }
    ])
    expect(r).toEqual({ kind: 'error', message: '3 of 5 deleted; 2 failed: locked' })
    const many = bulkSummary(
      'unarchive',
      ['a', 'b', 'c', 'd'].map((e) => ({ ok: false, error: e }))
    )
    expect(many.message).toBe('0 of 4 unarchived; 4 failed: a; b; c; +1 more')
  })

  it('chunks a batch to the request cap', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]])
    expect(chunks([], 2)).toEqual([])
  })
})
