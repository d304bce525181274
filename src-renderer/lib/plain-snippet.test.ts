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
  it("decodes upstream's escaped non-ASCII in a tool call's arguments (JSON inside JSON)", () => {
    // as messages.tool_calls holds it on the fidelity golden home (big-tools): the arguments string escaped twice
    const raw = '"arguments": "{\\"path\\": \\"rapport-\\\\u00e9t\\\\u00e9.md\\", \\"content\\": \\"'
    expect(raw).toContain('\\\\u00e9')
    const parts = plainSnippet([
      { text: raw, hit: false },
      { text: 'Heat', hit: true },
      { text: 'er \\\\u2713 \\\\ud83d\\\\ude80', hit: false }
    ])
    expect(parts.map((p) => p.text)).toEqual(['arguments: path: rapport-été.md, content: ', 'Heat', 'er ✓ 🚀'])
    // the snippet's cut fell inside an escape: the half is dropped, the ellipsis kept
    expect(plainSnippet([{ text: 'er \\\\u2713 \\\\u4…', hit: false }])[0]!.text).toBe('er ✓ …')
  })
})
