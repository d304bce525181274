import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseToolResult } from '../src-renderer/pages/session/tool-result'

interface Row {
  role: string
  content: string | null
  tool_name: string | null
}
// results upstream's own tools returned (scripts/golden/tool_results.py)
const rows = (
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/upstream/tool-results/rows.json'), 'utf8')) as {
    rows: Row[]
  }
).rows.filter((r) => r.role === 'tool')
const golden = (tool: string, i = 0) => {
  const r = rows.filter((x) => x.tool_name === tool)[i]!
  return parseToolResult(r.content!, r.tool_name)
}

describe('parseToolResult on upstream golden results', () => {
  it('reads terminal output as text with its exit code', () => {
    const ok = golden('terminal', 0)
    expect(ok).toMatchObject({ kind: 'terminal', exitCode: 0, output: 'Hello, Ada!\nline two\nline three' })
    expect(golden('terminal', 1)).toMatchObject({ kind: 'terminal', exitCode: 2 })
  })

  it('reads read_file content as numbered lines without the gutter or the end-of-file marker', () => {
    const v = golden('read_file', 0)
    if (v.kind !== 'file') throw new Error(v.kind)
    expect(v.lines[0]).toEqual({ n: 1, text: 'import sys' })
    expect(v.lines).toHaveLength(10)
    expect(v.lines.some((l) => /^\d+\|/.test(l.text))).toBe(false)
    const part = golden('read_file', 1)
    if (part.kind !== 'file') throw new Error(part.kind)
    expect(part.lines.map((l) => l.n)).toEqual([8, 9, 10])
  })

  it('reads a patch as its diff, searches and todos as lists, anything else as JSON', () => {
    expect(golden('patch')).toMatchObject({ kind: 'diff' })
    const matches = golden('search_files', 0)
    expect(matches).toMatchObject({ kind: 'list', total: 2 })
    expect(golden('search_files', 1)).toMatchObject({
      kind: 'list',
      items: [{ text: '/home/user/project/src/total.ts' }]
    })
    expect(golden('todo')).toMatchObject({ kind: 'list', items: [{ detail: 'completed' }, { detail: 'pending' }] })
    expect(golden('write_file').kind).toBe('json')
  })
})

describe('read_file gutters', () => {
  it('reads the padded gutter of older versions; text without one keeps its own numbering', () => {
    const padded = parseToolResult(JSON.stringify({ content: '     1|a\n     2|  b\n' }), 'read_file')
    expect(padded).toMatchObject({
      lines: [
        { n: 1, text: 'a' },
        { n: 2, text: '  b' }
      ]
    })
    const plain = parseToolResult(JSON.stringify({ content: '1|a\nplain' }), 'read_file')
    expect(plain).toMatchObject({
      lines: [
        { n: 1, text: '1|a' },
        { n: 2, text: 'plain' }
      ]
    })
  })

  it('keeps a JSON object that only looks like a tool result as JSON', () => {
    expect(parseToolResult('{"output": 3}', 'terminal').kind).toBe('json')
    expect(parseToolResult('{"error": "File not found"}', 'read_file')).toEqual({
      kind: 'error',
      error: 'File not found'
    })
    expect(parseToolResult('plain words', 'terminal').kind).toBe('terminal')
  })
})
