import { describe, expect, it } from 'vitest'
import { argsPreview } from './tool-args'

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
})
