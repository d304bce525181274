import { describe, expect, it } from 'vitest'
import { plainSnippet } from './plain-snippet'

describe('plainSnippet', () => {
  it('reads tool-call JSON and Markdown as plain words, hits kept', () => {
    expect(
      plainSnippet([
        { text: '{"command": "gh pr diff ', hit: false },
        { text: 'rollback', hit: true },
        { text: '",\\n"timeout": 30}', hit: false }
      ]).map((p) => p.text)
    ).toEqual(['command: gh pr diff ', 'rollback', ', timeout: 30'])
    expect(plainSnippet([{ text: '## Plan\n- **Run** `npm test` and [docs](http://x)', hit: false }])[0]!.text).toBe(
      'Plan - Run npm test and docs'
    )
  })
})
