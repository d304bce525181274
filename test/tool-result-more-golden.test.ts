// Upstream's other tools (scripts/golden/tool_results_more.py): how the transcript, `caduceus sessions show` and the
// Markdown export read what they returned. Before these views, every result below but the terminal's, read_file's
// and the plain `{error}` ones rendered as a JSON dump in all three.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Message, SessionDetail } from '../shared/contract'
import { failureOf, parseToolResult } from '../shared/contract/tool-result'
import { toolResultStatus, toolResultText } from '../shared/contract/tool-result-text'
import { pairResults } from '../shared/contract/tool-pairing'
import { pairToolCalls } from '../src-renderer/pages/session/tool-pairs'
import { formatSessionShow } from '../src-main/host/cli/format'
import { displayContent } from '../src-main/store/content-codec'
import { toMarkdown } from '../src-main/store/session-transfer'
import { exportHtml } from '../src-main/host/services/export-html'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { ToolOutput } from '../src-renderer/pages/session/ToolOutput'

interface Row {
  role: string
  content: string | null
  tool_calls: { id: string; type: string; function: { name: string; arguments: string } }[] | null
  tool_call_id: string | null
  tool_name: string | null
  timestamp: number
  finish_reason: string | null
}
/** A golden file under test/fixtures/upstream (scripts/golden wrote it). */
const upstreamGolden = <T>(path: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/upstream', path), 'utf8')) as T
/** A rows.json: a session's messages rows as upstream stored them. */
const upstreamRows = (path: string) => upstreamGolden<{ session: string; rows: Row[] }>(path)
const { session, rows } = upstreamRows('tool-results-more/rows.json')
/** The stored result of a call, as the store hands it out (multimodal parts read as text). */
const result = (id: string) => {
  const r = rows.find((x) => x.tool_call_id === id)!
  return { text: displayContent(r.content) ?? '', tool: r.tool_name }
}
const view = (n: number | string) => {
  const r = result(typeof n === 'number' ? `call_more_${n}` : n)
  return parseToolResult(r.text, r.tool)
}

describe("upstream's other tools in the transcript", () => {
  it('reads execute_code as a script run: its output, its time, a failure once', () => {
    expect(view(6)).toEqual({
      kind: 'terminal',
      output: 'ready\n10',
      exitCode: null,
      error: null,
      facts: [
        { label: 'took', value: '0.04 s' },
        { label: 'tool calls', value: '0' }
      ]
    })
    const failed = view(7)
    if (failed.kind !== 'terminal') throw new Error(failed.kind)
    expect(failed.output).toMatch(/^aaa\n\n--- stderr ---\nTraceback[\s\S]*ZeroDivisionError: division by zero$/)
    // the traceback upstream repeats in `error` is not shown twice
    expect(failed.error).toBe('The script ended with status error')
    expect(failureOf(failed)).toBe('failed')
    // JSON a program printed stays its output, not a nested dump
    expect(view(8)).toMatchObject({ kind: 'terminal', output: '{"ok": true, "items": [1, 2], "name": "caf\\u00e9"}' })
  })

  it("keeps a background process's id and pid beside the terminal's output", () => {
    expect(view(3)).toMatchObject({
      kind: 'terminal',
      output: 'Background process started',
      exitCode: 0,
      facts: [
        { label: 'process', value: 'proc_0123456789ab' },
        { label: 'pid', value: '4242' }
      ]
    })
  })

  it('reads memory, skills, session_search, cronjob and write_file field by field, lists as lists', () => {
    expect(view(9)).toMatchObject({
      kind: 'fields',
      ok: true,
      message: 'Entry added.',
      fields: expect.arrayContaining([{ key: 'usage', value: '1% — 23/2,200 chars', block: false }])
    })
    expect(view(11)).toMatchObject({
      kind: 'fields',
      lists: [
        {
          key: 'skills',
          items: [
            { text: 'release-notes', detail: 'writing', snippet: 'Write release notes from merged pull requests.' }
          ]
        }
      ]
    })
    const skill = view(12)
    if (skill.kind !== 'fields') throw new Error(skill.kind)
    expect(skill.fields.find((f) => f.key === 'content')).toMatchObject({ block: true })
    expect(view(14)).toMatchObject({
      kind: 'fields',
      lists: [{ key: 'results', items: [{ text: 'earlier-chat', snippet: 'Where did I put the >>>café<<< notes?' }] }]
    })
    expect(view(17)).toMatchObject({
      kind: 'fields',
      lists: [{ key: 'jobs', items: [{ text: 'inbox', snippet: 'Summarise the inbox' }] }]
    })
    expect(view(4)).toMatchObject({ kind: 'fields', fields: [{ key: 'processes', value: 'none' }] })
    expect(view(26)).toMatchObject({
      kind: 'fields',
      fields: expect.arrayContaining([
        { key: 'lint', value: 'status: skipped · message: No linter for .md files', block: false }
      ])
    })
    // read_file's "unchanged since last read": what it said, not a dump
    expect(view('call_par_0')).toMatchObject({ kind: 'fields', message: expect.stringMatching(/^File unchanged/) })
    // no result of this session reads as raw JSON
    const kinds = rows
      .filter((r) => r.role === 'tool')
      .map((r) => parseToolResult(displayContent(r.content)!, r.tool_name).kind)
    expect(kinds).not.toContain('json')
  })

  it("names an entry that has no name by its place (the shape of delegate_task's per-task results)", () => {
    const v = parseToolResult(
      JSON.stringify({
        results: [
          { task_index: 0, status: 'completed', summary: 'Wrote CHANGELOG.md', api_calls: 3, tokens: { input: 9 } }
        ],
        total_duration_seconds: 12.5
      }),
      'delegate_task'
    )
    expect(v).toMatchObject({
      kind: 'fields',
      fields: [{ key: 'total_duration_seconds', value: '12.5' }],
      lists: [{ key: 'results', items: [{ text: '#1', detail: 'completed', snippet: 'Wrote CHANGELOG.md' }] }]
    })
  })

  it('marks a failure in a success flag, and says why arguments that were not JSON ran nothing', () => {
    // beside a failure, the lists upstream gives to recover with
    expect(view(10)).toMatchObject({
      kind: 'error',
      details: [{ key: 'current_entries', value: 'User likes café au lait', block: false }]
    })
    expect(view(13)).toMatchObject({ kind: 'error', details: [{ key: 'available_skills', value: 'release-notes' }] })
    expect(failureOf(view(10))).toBe('failed')
    expect(view(28)).toEqual({
      kind: 'error',
      error: 'Invalid tool arguments',
      hint: 'Tool arguments must be a valid JSON object; tool was not executed.'
    })
  })
})

describe('the outcome in a few words (the folded call row, show, the Markdown export)', () => {
  it('says how each call of the first golden session went', () => {
    const first = upstreamRows('tool-results/rows.json')
    const statuses = first.rows
      .filter((r) => r.role === 'tool')
      .map((r) => toolResultStatus(parseToolResult(r.content!, r.tool_name)))
    expect(statuses).toEqual([
      'exit 0',
      'exit 2',
      '10 lines',
      '3 lines of 10',
      'diff +1 −1',
      '2 matches',
      '1 file',
      null,
      '2 todos',
      'failed',
      '2 results',
      '2 results',
      'failed',
      'failed',
      null,
      null
    ])
  })
})

describe('the same results as plain text', () => {
  it('prints outcome and text, each line its own, never the stored JSON', () => {
    expect(toolResultText(result('call_more_1').text, 'terminal')).toEqual({
      status: 'exit 0',
      lines: ['héllo wörld ✓ — naïve café']
    })
    expect(toolResultText(result('call_more_2').text, 'terminal').lines).toEqual(['(no output)'])
    // a patch: how many lines it added and removed (golden: ../tool-results, call_golden_5)
    const first = upstreamRows('tool-results/rows.json')
    const patch = first.rows.find((r) => r.tool_call_id === 'call_golden_5')!
    expect(toolResultText(patch.content!, 'patch').status).toBe('diff +1 −1')
    const image = toolResultText(result('call_more_23').text, 'image_generate')
    expect(image.status).toBe('failed')
    expect(image.lines.every((l) => !l.includes('\n'))).toBe(true)
    expect(toolResultText(result('call_more_22').text, 'web_search').lines[0]).toBe(
      '[untrusted content from web_search]'
    )
    // no stored field name comes through: each result reads as what it says
    for (const r of rows.filter((x) => x.role === 'tool' && x.content?.startsWith('{'))) {
      const first = Object.keys(JSON.parse(r.content!) as object)[0]!
      expect(toolResultText(r.content!, r.tool_name).lines.join('\n')).not.toContain(`"${first}":`)
    }
    expect(toolResultText(result('call_more_14').text, 'session_search').lines).toContain(
      '    Where did I put the [café] notes?'
    )
  })
})

/** A fixture's rows as the store hands them out (multimodal parts read as text), numbered from 1. */
const asMessages = (rs: Row[]) =>
  rs.map((r, i) => ({
    id: i + 1,
    sessionId: session,
    role: r.role,
    content: displayContent(r.content),
    toolName: r.tool_name,
    toolCallId: r.tool_call_id,
    toolCalls: r.tool_calls?.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
    timestamp: r.timestamp,
    finishReason: r.finish_reason
  })) as unknown as Message[]
const messages = asMessages(rows)
const detail = {
  summary: {
    id: session,
    title: 'More',
    profile: 'default',
    source: 'cli',
    model: 'm',
    messageCount: rows.length,
    cost: { usd: 0, complete: true }
  }
} as unknown as SessionDetail

describe('one call id used twice (upstream derives ids from tool, arguments and place)', () => {
  const twice = messages.filter((m) => m.toolCalls?.some((c) => c.arguments === '{"command": "cat counter.txt"}'))
  it('pairs each result with its own call, in the transcript, show and the Markdown export', () => {
    expect(twice).toHaveLength(2)
    const id = twice[0]!.toolCalls![0]!.id
    expect(twice[1]!.toolCalls![0]!.id).toBe(id)
    const byId = Object.fromEntries(messages.map((m) => [m.id, m]))
    const pairs = pairToolCalls(byId)
    expect(twice.map((c) => parseToolResult(pairs.resultOf(c, id)!.content!, 'terminal'))).toMatchObject([
      { output: 'first run' },
      { output: 'second run' }
    ])
    const show = formatSessionShow(detail, messages)
    expect(show).toMatch(/→ terminal\(command: cat counter\.txt\)\n.*\n {6}first run\n/)
    expect(show).toMatch(/→ terminal\(command: cat counter\.txt\)\n.*\n {6}second run\n/)
    const md = toMarkdown({ id: session, messages: rows.map((r) => ({ ...r })) })
    expect(md).toMatch(/first run[\s\S]*second run/)
    expect(md).not.toContain('_Its call is not in this session._\n\nResult (exit 0):\n\n```text\nfirst run')
  })

  it('answers a result stored before its call with that call, and leaves a second result for one call on its own', () => {
    const call = (id: number, callId: string) => ({ id, role: 'assistant', toolCalls: [{ id: callId }] })
    const res = (id: number, callId: string) => ({ id, role: 'tool', toolCallId: callId })
    const early = res(1, 'x')
    const a = call(2, 'x')
    const extra = res(4, 'y')
    const b = call(3, 'y')
    const answered = res(5, 'y')
    const p = pairResults([early, a, b, answered, extra])
    expect(p.resultOf(a, 'x')).toBe(early)
    expect(p.resultOf(b, 'y')).toBe(answered)
    expect(p.paired.has(extra)).toBe(false)
  })

  it('gives a result to the latest call before it, when an earlier call with that id was never answered', () => {
    // a run killed mid-tool leaves its call unanswered; the same call in a later turn gets the same id
    const call = (id: number) => ({ id, role: 'assistant', toolCalls: [{ id: 'call_x' }] })
    const killed = call(2)
    const again = call(4)
    const result = { id: 5, role: 'tool', toolCallId: 'call_x' }
    const p = pairResults([{ id: 1, role: 'user' }, killed, { id: 3, role: 'user' }, again, result])
    expect(p.resultOf(again, 'call_x')).toBe(result)
    expect(p.resultOf(killed, 'call_x')).toBeUndefined()
  })
})

describe('caduceus sessions show', () => {
  const text = formatSessionShow(detail, messages)
  it('prints each result under its call, read by its shape', () => {
    expect(text).toContain(
      [
        '  → terminal(command: python3 src/café.py)',
        '    ← exit 0 · 71 chars',
        '      héllo wörld ✓ — naïve café'
      ].join('\n')
    )
    expect(text).toContain(
      [
        '  → memory(action: add · target: memory · content: User likes café au lait)',
        '    ← ok · 196 chars',
        '      Entry added.'
      ].join('\n')
    )
    expect(text).not.toMatch(/\[tool:/.source + '(?!terminal\\] \\(its call)')
    expect(text).not.toContain('{"output"')
  })

  it('prints parallel calls each with its own result, whatever order they finished in', () => {
    const at = text.indexOf('[assistant] Reading the file and searching at once.')
    const part = text.slice(at).split('\n[')[0]!.split('\n')
    expect(part.filter((l) => l.startsWith('  → '))).toEqual([
      '  → read_file(path: src/café.py)',
      '  → terminal(command: echo one)',
      '  → search_files(pattern: café · target: content · path: src)'
    ])
    expect(part[part.indexOf('  → terminal(command: echo one)') + 2]).toBe('      one')
  })

  it("says when a call's arguments were not JSON (upstream did not run it)", () => {
    expect(text).toContain(
      '  → terminal(command: ls -la) · arguments not valid JSON\n    ← failed · 116 chars\n      error: Invalid tool arguments'
    )
  })

  it('cuts a long result to its head, and a very long line too', () => {
    const long = [
      { ...messages[1]!, toolCalls: [{ id: 'c1', name: 'terminal', arguments: '{"command": "cat big.min.js"}' }] },
      {
        ...messages[2]!,
        toolCallId: 'c1',
        content: JSON.stringify({
          output: ['x'.repeat(5000), ...Array.from({ length: 30 }, (_, i) => `l${i}`)].join('\n'),
          exit_code: 0
        })
      }
    ] as Message[]
    const lines = formatSessionShow(detail, long).split('\n')
    expect(lines).toContain(`      ${'x'.repeat(400)}…`)
    expect(lines.at(-1)).toBe('      … 19 more lines')
  })

  it('keeps a result whose call is not in the session, and says so', () => {
    expect(text).toContain('[tool:terminal] (its call is not in this session)\n  ← exit 0 · 51 chars\n    orphan')
  })
})

describe('the Markdown export', () => {
  const md = toMarkdown({
    id: session,
    title: 'More',
    source: 'cli',
    started_at: 1796000000,
    messages: rows.map((r) => ({ ...r }))
  })
  it('puts each call under its message with its result fenced, read by its shape', () => {
    expect(md).toContain(
      [
        '**Tool call: terminal** `command: python3 src/café.py`',
        '',
        'Result (exit 0):',
        '',
        '```text',
        'héllo wörld ✓ — naïve café',
        '```'
      ].join('\n')
    )
    expect(md).not.toContain('tool calls: [')
    expect(md).not.toContain('{"output"')
    // a heading inside a written file's text stays inside a fence, never a heading of the export
    expect(md).not.toMatch(/^# Été/m)
  })

  it("keeps an assistant's words and its calls both", () => {
    const at = md.indexOf('Reading the file and searching at once.')
    expect(at).toBeGreaterThan(0)
    expect(md.slice(at)).toMatch(
      /\*\*Tool call: read_file\*\*[\s\S]*\*\*Tool call: terminal\*\*[\s\S]*\*\*Tool call: search_files\*\*/
    )
  })

  it('names the tool of a result whose call is not in the session, and shows arguments that are not JSON whole', () => {
    expect(md).toContain('## tool · terminal · ')
    expect(md).toContain('_Its call is not in this session._')
    expect(md).toContain('```json\n{"command": "ls -la\n```')
  })
})

// Control characters upstream stores (scripts/golden/control_chars.py): a NUL a command printed (JSON-escaped as
// \u0000), a colour sequence's ESC in a file read_file returned and in a model's reply. A page drew each as an empty
// box or nothing (`nul::end`, a box then `[32m`); they read as their pictures, as `caduceus sessions show` prints them.
describe('control characters in what upstream stored', () => {
  const ctl = upstreamRows('control-chars/rows.json')
  const at = (id: string) => {
    const r = ctl.rows.find((x) => x.tool_call_id === id)!
    return parseToolResult(displayContent(r.content) ?? '', r.tool_name)
  }
  const NO_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

  it('shows them as their pictures in tool results', () => {
    expect(at('call_ctl_1')).toMatchObject({ kind: 'terminal', output: 'nul:\u2400:end\nred', exitCode: 0 })
    const file = at('call_ctl_2')
    if (file.kind !== 'file') throw new Error(file.kind)
    expect(file.lines.map((l) => l.text)).toEqual(['\u241b[32mok\u241b[0m build', 'bell::end'])
    expect(at('call_ctl_3')).toMatchObject({ kind: 'terminal', output: 'nul:\u2400:ff:\u240c:end\nbold' })
  })

  it('holds none in the HTML export', () => {
    const html = exportHtml([{ id: ctl.session, source: 'cli', messages: ctl.rows }], new Date(0))
    expect(html).not.toMatch(NO_CONTROL)
    expect(html).toContain('Done: \u241b[32mgreen\u241b[0m means ok.')
    expect(html).toContain('nul:\u2400:end')
  })
})

// search_files past the plain `matches` list (scripts/golden/tool_results_long.py): from five matches upstream
// writes them as one path-grouped `matches_text` block, `output_mode: "count"` as `counts`, and a search cut short
// gets a `[Hint: …]` line after its JSON. The transcript, `caduceus sessions show` and the exports read the first two
// as a field dump (the model's format note included) and the third as the raw JSON text.
describe('search_files results upstream groups, counts or cuts short', () => {
  const found = upstreamRows('tool-results-long/rows.json')
  const text = (n: number) => found.rows.find((x) => x.tool_call_id === `call_search_${n}`)!.content!
  const at = (n: number) => parseToolResult(text(n), 'search_files')
  const HINT = /^\[Hint: Results truncated\. Use offset=\d+ to see more/

  it('lists grouped matches as the plain list lists them: file, line, text', () => {
    const v = at(1)
    expect(v).toMatchObject({ kind: 'list', total: 7, empty: 'No matches' })
    if (v.kind !== 'list') throw new Error(v.kind)
    expect(v.items).toHaveLength(7)
    expect(v.items[2]).toEqual({ text: 'src/app.ts', detail: 'line 4', snippet: "export const café = greet('Zoë')" })
    // a match's indentation is its own; only the separator after the line number goes
    expect(v.items[5]).toEqual({
      text: 'src/greet.py',
      detail: 'line 9',
      snippet: '    return [greet(n) for n in names]'
    })
    expect(toolResultText(text(1), 'search_files')).toMatchObject({
      status: '7 matches',
      lines: expect.arrayContaining(['- src/greet.py · line 13', '        print(greet(sys.argv[1]))'])
    })
    expect(toolResultText(text(1), 'search_files').lines.join('\n')).not.toContain('path-grouped')
  })

  it('reads a search cut short as its list, with what the tool said about the rest', () => {
    for (const [n, shown, total] of [
      [3, 3, 13],
      [4, 6, 9]
    ] as const) {
      const v = at(n)
      if (v.kind !== 'list') throw new Error(v.kind)
      expect([v.items.length, v.total]).toEqual([shown, total])
      expect(v.note).toMatch(HINT)
      const t = toolResultText(text(n), 'search_files')
      expect(t.lines[t.lines.length - 1]).toMatch(HINT)
      expect(t.lines.join('\n')).not.toContain('"total_count"')
    }
    const html = renderToStaticMarkup(createElement(ToolOutput, { text: text(4), tool: 'search_files' }))
    expect(html).toContain('data-kind="list"')
    expect(html).toContain('6 of 9')
    expect(html).toMatch(/data-testid="tool-list-note">\[Hint: Results truncated/)
  })

  it('lists counts per file', () => {
    expect(at(5)).toMatchObject({
      kind: 'list',
      total: 7,
      items: [
        { text: 'src/empty.md', detail: '0 matches' },
        { text: 'src/app.ts', detail: '3 matches' },
        { text: 'src/greet.py', detail: '4 matches' }
      ]
    })
  })

  it('prints them so in caduceus sessions show', () => {
    const show = formatSessionShow(detail, asMessages(found.rows))
    expect(show).toContain("      - src/app.ts · line 4\n          export const café = greet('Zoë')")
    expect(show).not.toContain('{"total_count"')
    expect(show).not.toContain('matches_text')
  })
})

// The notes upstream's file tools put beside a result for the model (scripts/golden/tool_results_long.py): `_omitted`
// (a search's hits in a secret-bearing file left out) and `_warning` (the same search or read a third time in a row).
// The transcript, `caduceus sessions show` and the exports showed the list or the lines without them, so a search
// that left hits out read as complete.
describe('the notes upstream puts beside a search or a read', () => {
  const long = upstreamRows('tool-results-long/rows.json')
  const text = (id: string) => long.rows.find((x) => x.tool_call_id === id)!.content!
  const said = (id: string) => JSON.parse(text(id)) as { _omitted?: string; _warning?: string; hint?: string }

  it('shows them as the note under the list or the lines, in the page, sessions show and the exports', () => {
    const omitted = said('call_omit_1')._omitted!
    const again = said('call_again_search_3')._warning!
    const read = said('call_again_read_3')
    expect([omitted, again, read._warning]).toEqual([expect.any(String), expect.any(String), expect.any(String)])
    expect(parseToolResult(text('call_omit_1'), 'search_files')).toMatchObject({
      kind: 'list',
      total: 2,
      note: omitted
    })
    expect(parseToolResult(text('call_again_search_3'), 'search_files')).toMatchObject({ kind: 'list', note: again })
    expect(parseToolResult(text('call_again_read_3'), 'read_file')).toMatchObject({
      kind: 'file',
      note: `${read.hint}\n${read._warning}`
    })
    expect(toolResultText(text('call_omit_1'), 'search_files').lines.at(-1)).toBe(omitted)
    expect(toolResultText(text('call_again_read_3'), 'read_file').lines.slice(-2)).toEqual([read.hint, read._warning])
    const page = renderToStaticMarkup(createElement(ToolOutput, { text: text('call_omit_1'), tool: 'search_files' }))
    expect(page).toContain(`data-testid="tool-list-note">${omitted}`)
    const lines = renderToStaticMarkup(
      createElement(ToolOutput, { text: text('call_again_read_3'), tool: 'read_file' })
    )
    expect(lines).toContain(`data-testid="tool-file-note">${read.hint}<br/>${read._warning}`)
    const show = formatSessionShow(detail, asMessages(long.rows))
    const md = toMarkdown({ id: long.session, messages: long.rows.map((r) => ({ ...r })) })
    for (const out of [show, md]) for (const note of [omitted, again, read._warning!]) expect(out).toContain(note)
  })
})

// A call upstream's parallel executor gave up on (scripts/golden/tool_timeout.py): it stores its own plain-text error
// in the call's tool row, and upstream's CLI marks the call failed. The page, sessions show and the exports read it
// as a plain result, the call all green.
describe('a tool call upstream timed out', () => {
  const timeout = upstreamGolden<{ rows: Omit<Row, 'timestamp'>[]; cliDisplay: Record<string, [boolean, string]> }>(
    'tool-timeout/cases.json'
  )
  const row = (id: string) => timeout.rows.find((r) => r.tool_call_id === id)!

  it('is marked failed, as upstream shows it, and the call that finished is not', () => {
    expect(timeout.cliDisplay).toEqual({ call_read: [false, ''], call_slow: [true, ' [error]'] })
    const slow = row('call_slow')
    const v = parseToolResult(slow.content!, slow.tool_name)
    expect(v).toMatchObject({ kind: 'error', error: slow.content })
    expect(failureOf(v)).toBe('failed')
    expect(toolResultText(slow.content!, slow.tool_name)).toMatchObject({ status: 'failed' })
    const read = row('call_read')
    expect(failureOf(parseToolResult(read.content!, read.tool_name))).toBeNull()
    const msgs = asMessages(timeout.rows.map((r, i) => ({ ...r, timestamp: 1796100000 + i })))
    expect(formatSessionShow(detail, msgs)).toMatch(/search_files\(pattern: alpha\)\n +← failed/)
  })
})

// read_file of a file longer than one read (scripts/golden/tool_results_long.py): upstream numbers the empty piece
// after the last newline it read, so a read of lines 1-500 ends `501|`. Only the marker past the file's end was
// dropped: a read cut short showed an empty line 501 (the file's line 501 is not empty) and counted 501 lines.
describe('read_file cut short', () => {
  const long = upstreamRows('tool-results-long/rows.json')
  const text = (n: number) => long.rows.find((x) => x.tool_call_id === `call_read_${n}`)!.content!
  const at = (n: number) => parseToolResult(text(n), 'read_file')

  it('shows the lines read and no empty line after them', () => {
    const first = at(1)
    if (first.kind !== 'file') throw new Error(first.kind)
    expect([first.lines.length, first.lines.at(-1), first.total, first.truncated]).toEqual([
      500,
      { n: 500, text: 'ROW_500 = 500' },
      620,
      true
    ])
    expect(first.note).toBe('Use offset=501 to continue reading (showing 1-500 of 620 lines)')
    expect(toolResultText(text(1), 'read_file').status).toBe('500 lines of 620')
    const page = at(2)
    if (page.kind !== 'file') throw new Error(page.kind)
    expect(page.lines.map((l) => l.n)).toEqual([601, 602, 603, 604, 605, 606, 607, 608, 609, 610])
  })

  it('shows no line for an offset past the end', () => {
    expect(at(3)).toMatchObject({ kind: 'file', lines: [], total: 13 })
  })
})

// Upstream's tool-loop guard (scripts/golden/tool_loop_warnings.py) appends `[Tool loop warning: code; count=N; …]`
// after the JSON of a repeated failure or of a read-only call that gives the same answer again. The stored text was
// then not JSON: a failed command showed its JSON as its output with no failure mark, a search or a read its JSON.
describe("results upstream's tool-loop guard warned about", () => {
  const loop = upstreamRows('tool-loop-warnings/rows.json')
  const row = (n: number) => loop.rows.find((x) => x.tool_call_id === `call_loop_${n}`)!
  const at = (n: number) => parseToolResult(row(n).content!, row(n).tool_name)

  it('reads the result by its shape and the warning as a note, the failure still marked', () => {
    const again = at(2)
    expect(again).toMatchObject({
      kind: 'terminal',
      output: 'cat: missing.txt: No such file or directory',
      exitCode: 1
    })
    expect(again.frame?.guard).toEqual({
      stop: false,
      code: 'repeated_exact_failure_warning',
      count: 2,
      message: expect.stringMatching(/^terminal has failed 2 times with identical arguments\./)
    })
    expect(failureOf(again)).toBe('exit 1')
    // the recovery hint holds backticks and slashes; a search's same answer; a failed read beside read_file's own note
    expect(at(3)).toMatchObject({ kind: 'terminal', exitCode: 2, frame: { guard: { count: 3 } } })
    expect(at(3).frame?.guard?.message).toMatch(/`pwd && ls -la`[\s\S]*read_file\/write_file\/patch\.$/)
    expect(at(5)).toMatchObject({
      kind: 'list',
      total: 1,
      frame: { guard: { code: 'idempotent_no_progress_warning' } }
    })
    expect(at(11)).toMatchObject({
      kind: 'file',
      error: 'File not found: src/missing.py',
      frame: { guard: { count: 3 } }
    })
    // inside upstream's untrusted-content wrapper
    expect(at(8)).toMatchObject({
      kind: 'error',
      error: expect.stringMatching(/^Error searching web:/),
      frame: { untrusted: 'web_search', guard: { code: 'repeated_exact_failure_warning', count: 2 } }
    })
    // the call the guard blocked (hard stops on) is its own error
    expect(at(17)).toMatchObject({ kind: 'error', error: expect.stringMatching(/^Blocked terminal:/) })
    const kinds = loop.rows.filter((r) => r.role === 'tool').map((r) => parseToolResult(r.content!, r.tool_name).kind)
    expect(kinds).not.toContain('text')
  })

  it('prints the warning after the result in sessions show and the exports, and draws it on the page', () => {
    const t = toolResultText(row(2).content!, 'terminal')
    expect(t.status).toBe('exit 1')
    expect(t.lines).toEqual([
      'cat: missing.txt: No such file or directory',
      expect.stringMatching(/^\[tool loop warning to the model: terminal has failed 2 times .*unchanged\.\]$/)
    ])
    const html = renderToStaticMarkup(createElement(ToolOutput, { text: row(2).content!, tool: 'terminal' }))
    expect(html).toContain('data-kind="terminal"')
    expect(html).toMatch(/data-testid="tool-loop-guard"[^>]*>.*Tool loop warning to the model/)
    expect(html).not.toContain('{&quot;output&quot;')
  })
})
