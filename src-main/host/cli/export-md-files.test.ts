// The md/qmd export's file name from an imported session's title (any text: titles from a JSONL import are not
// length-checked): runs of other characters as `-`, `.`/`_`/`-` trimmed from both ends, lower case, 60 at most.
import { describe, expect, it } from 'vitest'
import { filename } from './export-md-files'

describe('export file name', () => {
  it('trims dots, underscores and dashes from both ends only', () => {
    expect(filename({ id: 's1', title: '..Deploy: the API!!..' }, 'md')).toBe('s1-deploy-the-api.md')
    expect(filename({ id: 's1', title: '_a.b_-c__' }, 'qmd')).toBe('s1-a.b_-c.qmd')
    expect(filename({ id: 's1', title: '._-' }, 'md')).toBe('s1-session.md')
    expect(filename({ id: 's1', title: `x${'.'.repeat(5000)}y${'.'.repeat(5000)}` }, 'md')).toBe(
      `s1-x${'.'.repeat(59)}.md`
    )
  })
})
