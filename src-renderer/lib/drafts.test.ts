import { beforeEach, describe, expect, it } from 'vitest'
import { readDraft, resetDraftsForTests, writeDraft } from './drafts'

describe('drafts', () => {
  beforeEach(() => resetDraftsForTests())

  it('keeps unsent text per key and forgets it once cleared', () => {
    writeDraft('default/s1', 'half a thought')
    writeDraft('default/s2', 'another')
    expect(readDraft('default/s1')).toBe('half a thought')
    expect(readDraft('default/s2')).toBe('another')
    writeDraft('default/s1', '')
    expect(readDraft('default/s1')).toBe('')
    expect(readDraft('missing')).toBe('')
  })

  it('caps what it keeps', () => {
    writeDraft('k', 'x'.repeat(300_000))
    expect(readDraft('k').length).toBe(200_000)
  })
})
