/**
 * The message that tells a session a background process it started has finished (or, upstream, that its output
 * matched a watch pattern), read back into its parts so the transcript and the exports show it as an event
 * (notice-rows.ts). Two writers make it, each in a fixed shape, and only those shapes are taken (a user may paste or type such a header: it stays theirs):
 * - Caduceus (src-main/tools/completion.ts): a user row with `display_kind = 'process_complete'`:
 *   `[Background process <id> finished: exit code N | signal S | unknown status]`, `Command: <command>`, then
 *   `Output (tail):` and the output's last lines, or `Output: (none)`.
 * - upstream Hermes (tools/process_registry.py's process notification formatter): the session's next user input, no
 *   display kind, the whole text in one pair of brackets: `[IMPORTANT: Background process <id> <how> (exit code N[,
 *   SIGTERM]).`, `Command: <command>`, `Output:` and the output; or for a watch pattern `[IMPORTANT: Background
 *   process <id> matched watch pattern "<pattern>".`, `Command: …`, `Matched output:`, the output and, when some
 *   were held back, `(N earlier matches were suppressed by rate limit)`.
 */

export interface ProcessNotice {
  writer: 'caduceus' | 'upstream'
  /** `exit`: the process ended; `watch`: its output matched a pattern while it runs on. */
  kind: 'exit' | 'watch'
  processId: string
  /** How it ended, in the writer's words: `exit code 1`, `signal SIGKILL`, `completed normally`, `terminated by user`. */
  how: string
  exitCode: string | null
  failed: boolean
  command: string
  output: string
  pattern: string | null
  /** Upstream: earlier watch matches held back by its rate limit. */
  suppressed: number | null
}

const CADUCEUS_KIND = 'process_complete'
const CADUCEUS_HEAD = /^\[Background process (\S+) finished: (exit code (-?\d+)|signal (\S+)|unknown status)\]$/
const UPSTREAM_EXIT =
  /^\[IMPORTANT: Background process (\S+) (completed normally|exited|terminated by .+|marked lost because the process backend disappeared|failed to start) \(exit code ([^,()\s]+)(, SIGTERM)?\)\.$/
const UPSTREAM_WATCH = /^\[IMPORTANT: Background process (\S+) matched watch pattern "(.*)"\.$/
const SUPPRESSED = /^\((\d+) earlier matches were suppressed by rate limit\)$/

/** `Command: …` from the second line up to the line `marker`; null when the shape is not there. */
function split(lines: string[], markers: string[]): { command: string; marker: string; rest: string[] } | null {
  if (!lines[1]?.startsWith('Command: ')) return null
  const at = lines.findIndex((l, i) => i > 0 && markers.includes(l))
  if (at < 0) return null
  const command = [lines[1].slice('Command: '.length), ...lines.slice(2, at)].join('\n')
  return { command, marker: lines[at]!, rest: lines.slice(at + 1) }
}

function caduceus(lines: string[]): ProcessNotice | null {
  const h = CADUCEUS_HEAD.exec(lines[0] ?? '')
  const parts = h && split(lines, ['Output (tail):', 'Output: (none)'])
  if (!h || !parts) return null
  if (parts.marker === 'Output: (none)' && parts.rest.length) return null
  const exitCode = h[3] ?? null
  return {
    writer: 'caduceus',
    kind: 'exit',
    processId: h[1]!,
    how: h[2]!,
    exitCode,
    failed: exitCode !== '0',
    command: parts.command,
    output: parts.rest.join('\n'),
    pattern: null,
    suppressed: null
  }
}

function upstream(lines: string[]): ProcessNotice | null {
  const last = lines.length - 1
  if (last < 2 || !lines[last]!.endsWith(']')) return null
  // the closing bracket ends the output (or the suppressed line), not a line of its own
  const body = [...lines.slice(0, last), lines[last]!.slice(0, -1)]
  const exit = UPSTREAM_EXIT.exec(body[0]!)
  if (exit) {
    const parts = split(body, ['Output:'])
    if (!parts) return null
    const how = exit[2]!
    return {
      writer: 'upstream',
      kind: 'exit',
      processId: exit[1]!,
      how: `${how}${exit[4] ? ' (SIGTERM)' : ''}`,
      exitCode: exit[3]!,
      failed: how !== 'completed normally',
      command: parts.command,
      output: parts.rest.join('\n'),
      pattern: null,
      suppressed: null
    }
  }
  const watch = UPSTREAM_WATCH.exec(body[0]!)
  const parts = watch && split(body, ['Matched output:'])
  if (!watch || !parts) return null
  const sup = parts.rest.length > 1 ? SUPPRESSED.exec(parts.rest[parts.rest.length - 1]!) : null
  return {
    writer: 'upstream',
    kind: 'watch',
    processId: watch[1]!,
    how: 'matched its watch pattern',
    exitCode: null,
    failed: false,
    command: parts.command,
    output: (sup ? parts.rest.slice(0, -1) : parts.rest).join('\n'),
    pattern: watch[2]!,
    suppressed: sup ? Number(sup[1]) : null
  }
}

/** The notice in this message, or null when it is not one of the shapes above. */
export function parseProcessNotice(m: {
  role: string
  displayKind: string | null
  content: string | null
}): ProcessNotice | null {
  if (m.role !== 'user' || !m.content) return null
  const lines = m.content.replace(/\r\n/g, '\n').split('\n')
  if (m.displayKind === CADUCEUS_KIND) return caduceus(lines)
  if (m.displayKind) return null
  return upstream(lines)
}
