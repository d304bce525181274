import { useState } from 'react'
import { Highlighted } from '../../components/Snippet'
import { parseToolResult, type ToolView } from '@shared/contract/tool-result'
import { DiffLines, FieldsView, FileView, ListView, TerminalView } from './ToolViews'
import { FrameNotes, FrameTop } from './ToolFrameNotes'
import { parseJsonOr } from '@shared/contract/errors'

/** Lines shown before "Show all": long outputs would push the conversation off screen. */
const HEAD_LINES = 40
const HEAD_CHARS = 4000

/** The text a view shows, for "is it long" and for cutting it to its head. */
function shownText(v: ToolView): string {
  switch (v.kind) {
    case 'terminal':
      return v.output
    case 'file':
      return v.lines.map((l) => l.text).join('\n')
    case 'diff':
      return v.diff
    case 'list':
      return v.items.map((i) => i.text).join('\n')
    case 'error':
      return v.error
    case 'fields':
      return [
        v.message ?? '',
        ...v.fields.map((f) => `${f.key}: ${f.value}`),
        ...v.lists.flatMap((l) => l.items.map((i) => i.text))
      ].join('\n')
    default:
      return v.text
  }
}

function cut<T extends ToolView>(v: T, lines: number, chars: number): T {
  const head = (t: string) => t.split('\n').slice(0, lines).join('\n').slice(0, chars)
  switch (v.kind) {
    case 'terminal':
      return { ...v, output: head(v.output) }
    case 'file':
      return { ...v, lines: v.lines.slice(0, lines) }
    case 'diff':
      return { ...v, diff: head(v.diff) }
    case 'list':
      return { ...v, items: v.items.slice(0, lines) }
    case 'fields':
      return { ...v, lists: v.lists.map((l) => ({ ...l, items: l.items.slice(0, lines) })) }
    case 'json':
    case 'text':
      return { ...v, text: head(v.text) }
    default:
      return v
  }
}

function Body({ v, path, terms }: { v: ToolView; path: string | null; terms?: string[] }) {
  switch (v.kind) {
    case 'terminal':
      return <TerminalView output={v.output} exitCode={v.exitCode} error={v.error} facts={v.facts} terms={terms} />
    case 'file':
      return <FileView lines={v.lines} path={path} error={v.error} similar={v.similar} note={v.note} />
    case 'diff':
      return (
        <pre className="code diff" tabIndex={0}>
          <DiffLines text={v.diff} />
        </pre>
      )
    case 'list':
      return <ListView items={v.items} total={v.total} empty={v.empty} note={v.note} />
    case 'fields':
      return <FieldsView v={v} terms={terms} />
    case 'error':
      return (
        <>
          <div className="tool-error" role="note" data-testid="tool-error">
            {v.error}
          </div>
          {v.hint && <div className="muted small">{v.hint}</div>}
          {v.details && (
            <FieldsView v={{ kind: 'fields', ok: null, message: null, fields: v.details, lists: [] }} terms={terms} />
          )}
        </>
      )
    default:
      return (
        <pre className={`code ${v.kind}`} tabIndex={0}>
          <Highlighted text={v.text} terms={terms} />
        </pre>
      )
  }
}

/**
 * A tool's output by what the tool returned (tool-result.ts): terminal text with its exit code, a file with its
 * line numbers in a gutter, a coloured diff, a list of matches or results, any other object field by field.
 * Anything long is cut to its head with a "Show all" button.
 */
export function ToolOutput({
  text,
  tool,
  terms,
  path = null
}: {
  text: string
  tool: string | null
  terms?: string[]
  /** The file the call named (read_file's path): picks the highlighting. */
  path?: string | null
}) {
  const [all, setAll] = useState(false)
  const v = parseToolResult(text, tool)
  const shown = shownText(v)
  const lineCount = v.kind === 'file' ? v.lines.length : v.kind === 'list' ? v.items.length : shown.split('\n').length
  const long = lineCount > HEAD_LINES || shown.length > HEAD_CHARS
  const body = long && !all ? cut(v, HEAD_LINES, HEAD_CHARS) : v
  return (
    <div className="tool-output" data-kind={v.kind} data-testid="tool-output">
      {v.frame && <FrameTop frame={v.frame} />}
      <Body v={body} path={path} terms={terms} />
      {v.frame && <FrameNotes frame={v.frame} />}
      {v.kind === 'file' && v.truncated && <div className="muted small">The tool returned part of the file.</div>}
      {long && (
        <button
          type="button"
          className="small link"
          onClick={() => setAll(!all)}
          data-testid="tool-output-expand"
          aria-expanded={all}
        >
          {all ? 'Show less' : `Show all (${lineCount.toLocaleString()} lines, ${shown.length.toLocaleString()} chars)`}
        </button>
      )}
    </div>
  )
}

/** Arguments of a file edit rendered as a diff (old → new), when the call has that shape. */
export function editAsDiff(args: string): string | null {
  const a = parseJsonOr(args, null) as Record<string, unknown> | null
  if (!a || typeof a !== 'object') return null // not JSON, or not an object
  const oldS = a.old_string ?? a.old_text ?? a.old
  const newS = a.new_string ?? a.new_text ?? a.new
  if (typeof oldS === 'string' && typeof newS === 'string') {
    const path = typeof a.path === 'string' ? a.path : typeof a.file_path === 'string' ? a.file_path : 'file'
    return [
      `--- ${path}`,
      `+++ ${path}`,
      ...oldS.split('\n').map((l) => `-${l}`),
      ...newS.split('\n').map((l) => `+${l}`)
    ].join('\n')
  }
  if (typeof a.patch === 'string') return a.patch
  return null
}
