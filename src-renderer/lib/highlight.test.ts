import { describe, expect, it } from 'vitest'
import { highlightParts, searchTerms } from './highlight'

describe('search highlighting', () => {
  it('takes words from a query, without FTS syntax or duplicates', () => {
    expect(searchTerms('Rollback "deploy*" rollback OR a')).toEqual(['rollback', 'deploy'])
    expect(searchTerms('  ')).toEqual([])
  })

  it('marks every case-insensitive match and keeps the rest as text', () => {
    expect(highlightParts('09:11 Rollback started; rollback done', ['rollback'])).toEqual([
      { text: '09:11 ', hit: false },
      { text: 'Rollback', hit: true },
      { text: ' started; ', hit: false },
      { text: 'rollback', hit: true },
      { text: ' done', hit: false }
    ])
    expect(highlightParts('a+b (c)', ['a+b', '(c)'])).toEqual([
      { text: 'a+b', hit: true },
      { text: ' ', hit: false },
      { text: '(c)', hit: true }
    ])
    expect(highlightParts('nothing here', [])).toEqual([{ text: 'nothing here', hit: false }])
  })
})
