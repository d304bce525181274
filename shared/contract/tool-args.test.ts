import { describe, expect, it } from 'vitest'
import { argsAreJsonObject, argsPreview, decodeUnicodeEscapes } from './tool-args'

describe('a tool call summary', () => {
  it("reads upstream's ASCII-escaped arguments as text (test/fixtures/upstream/fidelity: big-tools)", () => {
    const raw = JSON.stringify({ path: 'rapport-été.md', content: 'Heater ✓ 東京' }).replace(
      /[^\x00-\x7f]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
    )
    expect(raw).toContain('\\u00e9')
    expect(argsPreview(raw)).toBe('path: rapport-été.md · content: Heater ✓ 東京')
  })

  it('folds whitespace and shows nested values as compact JSON', () => {
    expect(argsPreview('{"cmd": "ls\\n  -la", "env": {"A": 1}, "n": 2, "ok": true, "x": null}')).toBe(
      'cmd: ls -la · env: {"A":1} · n: 2 · ok: true · x: null'
    )
  })

  it('keeps text that is not a JSON object as it is, and an empty object as nothing', () => {
    expect(argsPreview('not json {')).toBe('not json {')
    expect(argsPreview('[1, 2]')).toBe('[1, 2]')
    expect(argsPreview('"just a string"')).toBe('"just a string"')
    expect(argsPreview('{}')).toBe('')
  })

  it('cuts at 80 characters without splitting an emoji', () => {
    const long = argsPreview(JSON.stringify({ q: '🚀'.repeat(100) }))
    expect(Array.from(long)).toHaveLength(81)
    expect(long.endsWith('🚀…')).toBe(true)
  })
  it('reads the start of arguments a transcript page cut short (the rest loads with "show all")', () => {
    const full = JSON.stringify({ path: 'rapport-été.md', content: 'Heater ✓ '.repeat(400) }).replace(
      /[^\x00-\x7f]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
    )
    const cutShort = full.slice(0, 203) // inside the content string, mid-escape
    expect(() => JSON.parse(cutShort)).toThrow()
    expect(argsPreview(cutShort)).toBe(
      'path: rapport-été.md · content: Heater ✓ Heater ✓ Heater ✓ Heater ✓ Heater ✓ Hea…'
    )
    expect(argsPreview('{"n": 12, "opts": {"a": [1, 2')).toBe('n: 12 · opts: {"a": [1, 2')
    expect(argsPreview('{"cmd": "ls\\')).toBe('cmd: ls')
    expect(argsPreview('{ "unfinished')).toBe('{ "unfinished')
  })
  it('reads \\u escapes in text that cannot be parsed, and leaves an escaped backslash alone', () => {
    expect(decodeUnicodeEscapes('{"path": "notes/\\u00e9t\\u00e9.md", "c": "a\\\\u00e9 \\ud83d\\ude80 \\u12')).toBe(
      '{"path": "notes/été.md", "c": "a\\\\u00e9 🚀 \\u12'
    )
  })
})

describe('arguments upstream would not run', () => {
  it('tells a JSON object from cut-off text, an array or a bare value (upstream answers those with an error)', () => {
    expect(argsAreJsonObject('{"command": "ls"}')).toBe(true)
    // golden: test/fixtures/upstream/tool-results-more, call_more_28
    expect(argsAreJsonObject('{"command": "ls -la')).toBe(false)
    expect(argsAreJsonObject('["ls"]')).toBe(false)
    expect(argsAreJsonObject('"ls"')).toBe(false)
    expect(argsAreJsonObject('')).toBe(false)
  })
})

describe('a list of plain values in the arguments', () => {
  it("reads as a list, not as JSON (clarify's choices, golden: ../../test/fixtures/upstream/tool-results-more)", () => {
    expect(argsPreview('{"question": "Which branch?", "choices": ["main", "dev"]}')).toBe(
      'question: Which branch? · choices: main, dev'
    )
    expect(argsPreview('{"ids": [1, 2, true]}')).toBe('ids: 1, 2, true')
    // an empty list or one holding lists stays JSON
    expect(argsPreview('{"a": [], "b": [[1]]}')).toBe('a: [] · b: [[1]]')
  })
})

describe('a list of objects in the arguments', () => {
  it("reads each entry by what names it (todo's todos, golden: ../../test/fixtures/upstream/tool-results)", () => {
    const todos = JSON.stringify({
      todos: [
        { id: '1', content: 'Title-case the name', status: 'completed' },
        { id: '2', content: 'Add a test', status: 'pending' }
      ]
    })
    expect(argsPreview(todos)).toBe('todos: Title-case the name, Add a test')
    // entries with nothing to name them by stay JSON
    expect(argsPreview('{"ops": [{"a": 1}]}')).toBe('ops: [{"a":1}]')
  })
})
