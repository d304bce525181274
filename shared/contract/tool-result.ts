/**
 * What a tool returned, read by the shapes upstream Hermes' tools return (golden data:
 * test/fixtures/upstream/tool-results): terminal `{output, exit_code, error}`, read_file `{content}` with an
 * `N|` line gutter (space-padded in older versions), patch `{diff}`, search_files `{matches}` (from five matches
 * `{matches_text}`, grouped by file) / `{counts}` / `{files}` (with a `[Hint: …]` line after the JSON when cut short),
 * web results `{results|data.web: [{title, url}]}`, todo `{todos}`, execute_code `{status, output}`, and `{error}`.
 * Any other object is read field by field (`fields`); only arrays and scalars that are not objects stay JSON.
 * Any result with an `error` is shown as failed, whatever else it carries (read_file of a missing path returns an
 * empty `content` beside its error). Upstream's own layers around a result (tool-frame.ts) are peeled first.
 */
import { partialJsonText, unwrapToolResult, type ToolFrame } from './tool-frame'
import { parseJsonOr } from './errors'
import { showControls, showControlsDeep } from './control-chars'

export interface FileLine {
  n: number
  text: string
}
export interface ListItem {
  /** Main text (a path, a title, a todo). */
  text: string
  /** A line number, a status, a URL: shown beside the text. */
  detail?: string
  href?: string
  snippet?: string
}

/** A labelled value beside a result (a background process's id, a script's run time). */
export interface Fact {
  label: string
  value: string
}
/** A value of a result read field by field: short values on one line, long or multi-line text as a block. */
export interface Field {
  key: string
  value: string
  block: boolean
}

export type ToolView =
  | { kind: 'terminal'; output: string; exitCode: number | null; error: string | null; facts?: Fact[] }
  | {
      kind: 'file'
      lines: FileLine[]
      total: number | null
      truncated: boolean
      note: string | null
      /** The read failed (a missing path): its message, and the paths upstream suggested instead. */
      error: string | null
      similar: string[]
    }
  | { kind: 'diff'; diff: string; note: string | null }
  | {
      kind: 'list'
      items: ListItem[]
      total: number | null
      empty: string
      /**
       * What the tool said beside the list, one note a line: hits it left out, a repeated search, the `[Hint: …]`
       * search_files appends after its JSON when it cut the list short.
       */
      note?: string
    }
  | {
      kind: 'error'
      error: string
      hint: string | null
      /** Lists upstream gives beside a failure to recover with (memory's current entries, the skills there are). */
      details?: Field[]
    }
  | {
      /** An object no other view fits (memory, cronjob, skills, session_search…), read field by field. */
      kind: 'fields'
      /** Its `success` flag, when it has one. */
      ok: boolean | null
      message: string | null
      fields: Field[]
      lists: { key: string; items: ListItem[] }[]
    }
  | { kind: 'json'; text: string }
  | { kind: 'text'; text: string }

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** `  12|text` or `12|text` (older read_file padded the number; some versions used a tab). */
const GUTTER = /^ *(\d+)[|\t](.*)$/

/** Lines of a read_file `content`, or null when not every non-empty line carries the gutter. */
function parseGutter(content: string): FileLine[] | null {
  const raw = content.split('\n')
  // upstream ends the content with a numbered empty line or a bare newline: drop the trailing empty piece only
  if (raw.length && raw[raw.length - 1] === '') raw.pop()
  const lines: FileLine[] = []
  for (const l of raw) {
    const m = GUTTER.exec(l)
    if (!m) return null
    lines.push({ n: Number(m[1]), text: m[2]! })
  }
  return lines.length ? lines : null
}

function fileView(o: Obj): ToolView | null {
  const content = str(o.content)
  if (content == null) return null
  const error = str(o.error) || null
  const similar = Array.isArray(o.similar_files) ? o.similar_files.filter((f) => typeof f === 'string') : []
  if (error && !content) {
    return { kind: 'file', lines: [], total: null, truncated: false, note: null, error, similar }
  }
  const lines = parseGutter(content) ?? content.split('\n').map((text, i) => ({ n: i + 1, text }))
  // upstream numbers the empty piece after the last newline it read: past the file's end, or, on a read cut short
  // (whose last line always ends with a newline), the line after it — the next page's first line, not an empty one
  const total = num(o.total_lines)
  const last = lines[lines.length - 1]
  if (last && last.text === '' && ((total != null && last.n > total) || o.truncated === true)) lines.pop()
  return {
    kind: 'file',
    lines,
    total,
    truncated: o.truncated === true,
    note: notesOf(o, [str(o.hint) ?? str(o.note) ?? str(o.warning), str(o._hint)]),
    error,
    similar
  }
}

/**
 * The notes a tool put beside its result, one a line: its own (`hint`), then the ones upstream's file tools add for
 * the model (`_omitted`: hits in secret-bearing files left out; `_warning`: the same call again, a file changed since
 * read), which say the result is not the whole story — a reader must see them as the model did.
 */
function notesOf(o: Obj, own: Array<string | null> = []): string | null {
  const notes = [...own, str(o._omitted), str(o._warning)].filter((n): n is string => !!n)
  return notes.length ? notes.join('\n') : null
}

/** A search match as a list item: its file, its line, the matching text. */
const matchItem = (path: string, line: number | null, text: string | null): ListItem => ({
  text: path,
  detail: line != null ? `line ${line}` : undefined,
  snippet: text ?? undefined
})

/**
 * search_files' `matches_text`, which upstream writes instead of `matches` from five matches on: each file's path on
 * a line of its own, then its matches (context lines too) as `  <line>: <text>`.
 */
function groupedMatches(text: string): ListItem[] {
  const items: ListItem[] = []
  let path = ''
  for (const l of text.split('\n')) {
    const m = /^ {2}(\d+): ?(.*)$/.exec(l)
    if (m) items.push(matchItem(path, Number(m[1]), m[2]!))
    else if (l) path = l
  }
  return items
}

function listView(o: Obj): ToolView | null {
  const view = listItems(o)
  const note = view && notesOf(o)
  return note ? { ...view, note } : view
}

function listItems(o: Obj): (ToolView & { kind: 'list' }) | null {
  const total = num(o.total_count) ?? num(o.total)
  if (Array.isArray(o.matches)) {
    const items = o.matches
      .filter(isObj)
      .map((m) => matchItem(str(m.path) ?? str(m.file) ?? '', num(m.line), str(m.content) ?? str(m.text)))
    return { kind: 'list', items, total, empty: 'No matches' }
  }
  if (typeof o.matches_text === 'string') {
    return { kind: 'list', items: groupedMatches(o.matches_text), total, empty: 'No matches' }
  }
  // output_mode "count": matches per file
  if (isObj(o.counts) && Object.values(o.counts).every((n) => num(n) != null)) {
    const items = Object.entries(o.counts).map(([text, n]) => ({
      text,
      detail: `${n as number} ${n === 1 ? 'match' : 'matches'}`
    }))
    return { kind: 'list', items, total, empty: 'No matches' }
  }
  if (Array.isArray(o.files) && o.files.every((f) => typeof f === 'string')) {
    return { kind: 'list', items: (o.files as string[]).map((text) => ({ text })), total, empty: 'No files' }
  }
  if (Array.isArray(o.todos)) {
    const items = o.todos.filter(isObj).map((t) => ({ text: str(t.content) ?? '', detail: str(t.status) ?? undefined }))
    return { kind: 'list', items, total: null, empty: 'No todos' }
  }
  const web = Array.isArray(o.results) ? o.results : isObj(o.data) && Array.isArray(o.data.web) ? o.data.web : null
  if (web && web.every(isObj) && web.some((r) => str((r as Obj).url))) {
    const items = (web as Obj[]).map((r) => {
      const url = str(r.url) ?? ''
      return {
        text: str(r.title) || url,
        detail: url,
        href: /^https?:\/\//i.test(url) ? url : undefined,
        // web_extract keeps a page it could not fetch as an entry with its error
        snippet:
          (str(r.error) ? `Error: ${str(r.error)}` : null) ??
          str(r.description) ??
          str(r.snippet) ??
          str(r.content)?.slice(0, 300) ??
          undefined
      }
    })
    return { kind: 'list', items, total, empty: 'No results' }
  }
  return null
}

/** Short scalar text: a string, number or boolean; null for anything else or an empty string. */
function scalar(v: unknown): string | null {
  if (typeof v === 'string') return v || null
  if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return String(v)
  return null
}

/** Facts worth keeping beside a command's output: the values upstream adds around it, by their own names. */
function factsOf(o: Obj, keys: Array<[string, string]>): Fact[] {
  return keys.flatMap(([key, label]) => {
    const v = scalar(o[key])
    return v == null ? [] : [{ label, value: key === 'duration_seconds' ? `${v} s` : v }]
  })
}

/** A command's result: terminal `{output, exit_code}`, execute_code `{status, output}`. */
function commandView(o: Obj): ToolView | null {
  if (typeof o.output !== 'string') return null
  if ('exit_code' in o) {
    const facts = factsOf(o, [
      ['session_id', 'process'],
      ['pid', 'pid']
    ])
    const view = { kind: 'terminal' as const, output: o.output, exitCode: num(o.exit_code), error: str(o.error) }
    return facts.length ? { ...view, facts } : view
  }
  const status = str(o.status)
  if (!status || !('tool_calls_made' in o || 'duration_seconds' in o)) return null
  // execute_code repeats stderr (a traceback) in `error`; shown once, in the output, and the call marked failed
  const err = str(o.error)
  const error =
    status === 'success' ? null : err && !o.output.includes(err.trim()) ? err : `The script ended with status ${status}`
  const facts = factsOf(o, [
    ['duration_seconds', 'took'],
    ['tool_calls_made', 'tool calls']
  ])
  return { kind: 'terminal', output: o.output.replace(/\n$/, ''), exitCode: null, error, facts }
}

const TITLE_KEYS = ['name', 'title', 'goal', 'session_id', 'job_id', 'id', 'path', 'url', 'query']
const DETAIL_KEYS = ['category', 'source', 'status', 'state', 'schedule', 'when', 'model', 'next_run_at', 'line']
const SNIPPET_KEYS = ['snippet', 'preview', 'description', 'prompt_preview', 'summary', 'content', 'text']

/**
 * A snippet's parts with upstream's match markers read (session_search marks a hit `>>>word<<<` for the model):
 * hits flagged, the markers gone.
 */
export function markedParts(snippet: string): { text: string; hit: boolean }[] {
  return snippet
    .split(/>>>([\s\S]*?)<<</)
    .map((text, i) => ({ text, hit: i % 2 === 1 }))
    .filter((p) => p.text)
}

/** One entry of a list of objects (skills, sessions, jobs): a title, a few short details, a snippet. */
function itemOf(o: Obj, i: number): ListItem {
  const titleKey = TITLE_KEYS.find((k) => scalar(o[k]) != null)
  // an entry named by nothing (delegate_task's per-task results): by its place, as upstream counts tasks
  const text = titleKey ? scalar(o[titleKey])! : `#${(num(o.task_index) ?? i) + 1}`
  const details = DETAIL_KEYS.filter((k) => k !== titleKey)
    .map((k) => scalar(o[k]))
    .filter((v): v is string => v != null && v.length <= 60)
  const snip = SNIPPET_KEYS.filter((k) => k !== titleKey)
    .map((k) => str(o[k]))
    .map((v) => v?.trim())
    .find((v) => !!v)
  return {
    text,
    ...(details.length ? { detail: details.join(' · ') } : {}),
    ...(snip ? { snippet: snip.length > 300 ? `${snip.slice(0, 300)}…` : snip } : {})
  }
}

/** An inner object on one line: its scalar entries as `key: value`. */
const inline = (o: Obj) =>
  Object.entries(o)
    .flatMap(([k, v]) => (scalar(v) == null ? [] : [`${k}: ${scalar(v)}`]))
    .join(' · ')

/** Any other object, field by field, so no result reads as a JSON dump. */
function fieldsView(o: Obj): ToolView {
  const fields: Field[] = []
  const lists: { key: string; items: ListItem[] }[] = []
  const empty: string[] = []
  for (const [key, v] of Object.entries(o)) {
    if (key === 'success' || key === 'message' || key.startsWith('_') || v == null) continue
    if (Array.isArray(v)) {
      if (v.length && v.every(isObj)) lists.push({ key, items: v.map((x, i) => itemOf(x as Obj, i)) })
      else if (v.length)
        fields.push({ key, value: v.map((x) => scalar(x) ?? JSON.stringify(x)).join(', '), block: false })
      else empty.push(key)
      continue
    }
    const value = isObj(v) ? inline(v) : scalar(v)
    if (value) fields.push({ key, value, block: value.includes('\n') || value.length > 160 })
  }
  const ok = typeof o.success === 'boolean' ? o.success : null
  const message = str(o.message)
  // empty lists say nothing beside other fields (skill_view's `tags: []`); alone, they are the answer (no processes)
  if (!message && !fields.length && !lists.length)
    for (const key of empty) fields.push({ key, value: 'none', block: false })
  return { kind: 'fields', ok, message, fields, lists }
}

function fromObject(o: Obj, tool: string | null): ToolView | null {
  const command = commandView(o)
  if (command) return command
  if (typeof o.diff === 'string') return { kind: 'diff', diff: o.diff, note: str(o.error) }
  if (typeof o.content === 'string' && (tool === 'read_file' || 'total_lines' in o || parseGutter(o.content))) {
    return fileView(o)
  }
  // failures of write_file, patch, search_files, web_search…: {error} beside fields that would read as success
  const error = str(o.error)
  // upstream's own refusals say why beside the error (`message`: arguments that were not JSON, nothing ran)
  if (error) {
    const view = { kind: 'error' as const, error, hint: str(o.hint) ?? str(o._hint) ?? str(o.message) }
    const details = Object.entries(o).flatMap(([key, v]) =>
      Array.isArray(v) && v.length && v.every((x) => scalar(x) != null)
        ? [{ key, value: v.map((x) => scalar(x)!).join(', '), block: false }]
        : []
    )
    return details.length ? { ...view, details } : view
  }
  return listView(o)
}

const isTerminalTool = (tool: string | null) => !!tool && /terminal|shell|bash|process|exec/.test(tool)

/** A view, and upstream's layers around the result when it had any (the untrusted wrapper, a cut, context). */
type ToolResult = ToolView & { frame?: ToolFrame }

/** A control character in JSON text, escaped (`\u0000`, `\f`) or raw: only then is a parsed value worth a walk. */
const JSON_CONTROL = /\\u00[01]|\\u00[89]|\\u007f|\\[bf]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/i

/** The line search_files appends after its JSON when it cut the results short: not part of the JSON. */
const TRAILING_HINT = /\n\n(\[Hint: [^\]\n]*\])$/

function viewOf(raw: string, tool: string | null, cut: boolean): ToolView {
  const hint = TRAILING_HINT.exec(raw)
  if (hint && raw.trimStart().startsWith('{')) {
    const view = bodyView(raw.slice(0, hint.index), tool, cut)
    if (view.kind === 'list') {
      const note = [view.note, showControls(hint[1]!)].filter(Boolean).join('\n')
      return { ...view, note }
    }
  }
  return bodyView(raw, tool, cut)
}

/**
 * The text upstream's tool executor stores in place of a result when the call raised or outlived the parallel
 * executor's deadline (golden: test/fixtures/upstream/tool-timeout). Only the executor writes this opening, never a
 * tool, so it marks the call failed whatever the tool (upstream's ACP adapter reads it so; its CLI, for every tool
 * but the terminal, by the text starting with "Error").
 */
const EXECUTOR_ERROR = /^Error executing tool '[^'\n]*': /

function bodyView(raw: string, tool: string | null, cut: boolean): ToolView {
  // what a page shows holds no control character (control-chars.ts): a NUL or an ESC is drawn as its picture
  if (EXECUTOR_ERROR.test(raw)) return { kind: 'error', error: showControls(raw).trim(), hint: null }
  const t = raw.trim()
  if ((t.startsWith('{') || t.startsWith('[')) && t.length < 2_000_000) {
    // undefined: not JSON (a tool that returns plain text, or a result cut short)
    const parsed = parseJsonOr(t, undefined)
    const v = parsed !== undefined && JSON_CONTROL.test(t) ? showControlsDeep(parsed) : parsed
    if (v !== undefined) {
      const view = isObj(v) ? (fromObject(v, tool) ?? fieldsView(v)) : null
      return view ?? { kind: 'json', text: JSON.stringify(v, null, 2) }
    }
    // a preview cut mid-string: its main field decoded (no literal \n escapes), else the preview as it is
    const part = cut ? partialJsonText(t) : null
    if (part && (part.key === 'output' || isTerminalTool(tool))) {
      return { kind: 'terminal', output: showControls(part.text), exitCode: null, error: null }
    }
    if (part) return { kind: 'text', text: showControls(part.text) }
  }
  // (the JSON views above picture their own strings: the whole text is pictured only for the views below)
  const text = showControls(raw)
  if (/^(diff --git|--- |\+\+\+ |@@ )/m.test(t) && /^[+-]/m.test(t)) return { kind: 'diff', diff: text, note: null }
  if (isTerminalTool(tool)) return { kind: 'terminal', output: text, exitCode: null, error: null }
  return { kind: 'text', text }
}

/** The view for a tool's stored result text. */
export function parseToolResult(text: string, tool: string | null): ToolResult {
  const { body, frame } = unwrapToolResult(text)
  const view = viewOf(body, tool, !!frame?.cut)
  return frame ? { ...view, frame } : view
}

/**
 * What the call's folded row says when it failed ("exit 3", "failed"), or null: upstream's CLI marks a failed call
 * on its one-line summary, so a transcript read folded must not look all green. The same signals the views show.
 */
export function failureOf(v: ToolView): string | null {
  if (v.kind === 'terminal') return v.exitCode ? `exit ${v.exitCode}` : v.error ? 'failed' : null
  return (v.kind === 'file' && v.error) || v.kind === 'error' || (v.kind === 'fields' && v.ok === false)
    ? 'failed'
    : null
}

/** The path a call worked on, from its arguments (read_file and patch name it `path`). */
export function pathArg(args: string | undefined): string | null {
  if (!args) return null
  const a = parseJsonOr(args, null)
  return isObj(a) ? (str(a.path) ?? str(a.file_path)) : null
}
