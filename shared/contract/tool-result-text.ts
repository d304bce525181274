/**
 * A tool result as plain text, for `caduceus sessions show` and the Markdown export: the same reading as the
 * transcript's views (tool-result.ts), so a terminal call prints its output and exit code, a file read its lines,
 * a failure its message — never the JSON upstream stored. Upstream's layers around a result (an untrusted-content
 * wrapper, a preview of an oversized result, context files, a message sent mid-turn) become one line each.
 */
import { failureOf, markedParts, parseToolResult, type ToolView } from './tool-result'

export interface ToolResultText {
  /** One line about the outcome: "exit 0", "failed", "12 lines", "3 matches"…; null when nothing to say. */
  status: string | null
  /** The result's own text, line by line. */
  lines: string[]
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

/** A snippet with upstream's hit markers as brackets, as `caduceus sessions search` marks a hit. */
const snippetText = (s: string) =>
  markedParts(s)
    .map((p) => (p.hit ? `[${p.text}]` : p.text))
    .join('')

function bodyLines(v: ToolView): string[] {
  switch (v.kind) {
    case 'terminal': {
      const out = v.output ? v.output.split('\n') : ['(no output)']
      const facts = v.facts?.length ? [v.facts.map((f) => `${f.label}: ${f.value}`).join(' · ')] : []
      return [...out, ...(v.error ? [`error: ${v.error}`] : []), ...facts]
    }
    case 'file': {
      if (v.error && !v.lines.length)
        return [`error: ${v.error}`, ...(v.similar.length ? [`similar files: ${v.similar.join(', ')}`] : [])]
      const width = String(v.lines[v.lines.length - 1]?.n ?? 1).length
      return [
        ...v.lines.map((l) => `${String(l.n).padStart(width)}  ${l.text}`),
        ...(v.truncated ? ['(the tool returned part of the file)'] : []),
        ...(v.note ? [v.note] : [])
      ]
    }
    case 'diff':
      return [...v.diff.split('\n'), ...(v.note ? [v.note] : [])]
    case 'list':
      if (!v.items.length) return [v.empty, ...(v.note ? [v.note] : [])]
      return [
        ...v.items.flatMap((i) => [
          `- ${i.text}${i.detail && i.detail !== i.text ? ` · ${i.detail}` : ''}`,
          ...(i.snippet
            ? snippetText(i.snippet)
                .split('\n')
                .map((l) => `    ${l}`)
            : [])
        ]),
        ...(v.note ? [v.note] : [])
      ]
    case 'error':
      return [`error: ${v.error}`, ...(v.hint ? [v.hint] : []), ...(v.details ?? []).map((f) => `${f.key}: ${f.value}`)]
    case 'fields':
      return [
        ...(v.message ? v.message.split('\n') : []),
        ...v.fields.flatMap((f) =>
          f.block ? [`${f.key}:`, ...f.value.split('\n').map((l) => `    ${l}`)] : [`${f.key}: ${f.value}`]
        ),
        ...v.lists.flatMap((l) => [
          `${l.key}:`,
          ...l.items.flatMap((i) => [
            `- ${i.text}${i.detail ? ` · ${i.detail}` : ''}`,
            ...(i.snippet
              ? snippetText(i.snippet)
                  .split('\n')
                  .map((s) => `    ${s}`)
              : [])
          ])
        ])
      ]
    default:
      return v.text.split('\n')
  }
}

const LIST_NOUNS: Record<string, [string, string]> = {
  'No matches': ['match', 'matches'],
  'No files': ['file', 'files'],
  'No todos': ['todo', 'todos'],
  'No results': ['result', 'results']
}

/** The outcome in a few words ("exit 0", "failed", "12 lines", "diff +3 −1"), or null when it has none to give. */
export function toolResultStatus(v: ToolView): string | null {
  const failed = failureOf(v)
  if (failed) return failed
  switch (v.kind) {
    case 'terminal':
      return v.exitCode != null ? `exit ${v.exitCode}` : null
    case 'file':
      return v.total != null && v.total > v.lines.length
        ? `${plural(v.lines.length, 'line')} of ${v.total.toLocaleString('en-US')}`
        : plural(v.lines.length, 'line')
    case 'list': {
      // the list's own noun: matches, files, todos, results
      const [one, many] = LIST_NOUNS[v.empty] ?? ['item', 'items']
      return plural(v.total ?? v.items.length, one, many)
    }
    case 'diff': {
      const lines = v.diff.split('\n')
      const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length
      const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length
      return `diff +${added} −${removed}`
    }
    case 'fields':
      return v.ok ? 'ok' : null
    default:
      return null
  }
}

/** The plain-text reading of a stored result. */
export function toolResultText(content: string, tool: string | null): ToolResultText {
  const v = parseToolResult(content, tool)
  const f = v.frame
  const before: string[] = []
  const after: string[] = []
  if (f?.untrusted) before.push(`[untrusted content from ${f.untrusted}]`)
  if (f?.cut) {
    const size = f.cut.chars != null ? `${f.cut.chars.toLocaleString('en-US')} characters` : 'larger'
    before.push(`[preview only: the result was ${size}${f.cut.path ? `; the whole is saved at ${f.cut.path}` : ''}]`)
  }
  if (f?.guard) after.push(`[tool loop ${f.guard.stop ? 'hard stop' : 'warning'} to the model: ${f.guard.message}]`)
  for (const c of f?.context ?? []) after.push(`[context from ${c.path}]`)
  if (f?.steer) after.push(`[your message during the turn: ${f.steer}]`)
  const lines = [...before, ...bodyLines(v), ...after].flatMap((l) => l.split('\n'))
  return { status: toolResultStatus(v), lines }
}
