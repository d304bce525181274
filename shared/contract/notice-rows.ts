/**
 * Which stored rows are not anyone's words in the conversation — notices, notes to the model, compression summaries —
 * and how each reads. One classification for every reading of a session: the transcript (MessageItem picks its card
 * by it), Caduceus's Markdown export, upstream's md/qmd file and `sessions show`. The rows stay what they are in the
 * store and in JSONL (upstream's shape); only their reading changes.
 */
import { parseDelegationNotice, type DelegationNotice } from './delegation-notice'
import { rowSummary, splitMergedSummary } from './merged-summary'
import { parseProcessNotice, type ProcessNotice } from './process-notice'
import { parseStoppedTurn, stoppedTurnText, type StoppedTurn } from './stopped-turn'
import { MESSAGE_FIELD_MAX_BYTES } from './sessions'

/** The fields a classification reads, as the contract's Message has them. */
interface RowFields {
  role: string
  content: string | null
  displayKind: string | null
  finishReason: string | null
  toolCalls: unknown[] | null
  /** The row's `_compressed_summary` flag, where the home has the column (merged-summary.ts rowSummary). */
  compressedSummary?: boolean
}

export type RowKind =
  /** A note to the model no transcript shows: `display_kind = 'hidden'`, or a user row opening "[System:" (store/sql.ts
   * hiddenMessageSql, the same rule in SQL) — Caduceus's continuation requests, upstream's runtime notes. */
  | { kind: 'system_note' }
  /** A continuation's opening compression summary (the transcript folds it). */
  | { kind: 'summary' }
  /** Upstream's recovery note for a turn cut off mid-run, stored as a user turn for the model. */
  | { kind: 'resumed' }
  | { kind: 'delegation'; notice: DelegationNotice }
  | { kind: 'process'; notice: ProcessNotice }
  | { kind: 'stopped'; stop: StoppedTurn }
  /** Another row a display kind marks as a notice, read as its text. */
  | { kind: 'notice' }
  /** The user's words, sent while a turn ran and added to it at its next step (the composer's Steer). */
  | { kind: 'steer' }

const RESUMED_NOTE = '[System note: Your previous turn was interrupted mid-run'

/**
 * A summary as its own row: what merged-summary.ts's rowSummary reads as a summary with no kept message — the rule the
 * chain view and a later compression read rows by too, so the transcript folds exactly the rows they take for
 * summaries. A summary merged into a kept message is that message (mergedSummaryOf), not this.
 */
export const isCompactionSummary = (role: string, content: string | null, flagged?: boolean) =>
  rowSummary(role, content, flagged)?.kept === null

/**
 * A compression summary merged into a kept message (merged-summary.ts): the message's own words and the summary. The
 * transcript shows the words and folds the summary; read where the row is marked so (`summaryMerged`: Caduceus's
 * display metadata, or the store's read of the layout) and in any user or assistant row laid out that way (upstream
 * v21 marks its merged rows no other way, and merges into a reply as readily as into a question).
 */
export function mergedSummaryOf(m: {
  role: string
  content: string | null
  summaryMerged?: boolean
}): { kept: string; summary: string } | null {
  return m.summaryMerged || m.role === 'user' || m.role === 'assistant' ? splitMergedSummary(m.content) : null
}

/** The same for a row in upstream's stored shape (`display_metadata` as JSON text). */
export function storedMergedSummary(m: Record<string, unknown>): { kept: string; summary: string } | null {
  let merged = false
  try {
    const meta: unknown = typeof m.display_metadata === 'string' ? JSON.parse(m.display_metadata) : m.display_metadata
    merged = (meta as { summaryMerged?: unknown } | null)?.summaryMerged === true
  } catch {
    // not JSON: not marked
  }
  return mergedSummaryOf({
    role: String(m.role),
    content: typeof m.content === 'string' ? m.content : null,
    summaryMerged: merged
  })
}

/** A summary in Markdown, folded as the transcript folds it (its own headings stay inside the fold). */
export function foldedSummary(summary: string): string {
  const text = summary.trim()
  return `<details><summary>Compaction summary · ${text.length.toLocaleString('en-US')} chars</summary>\n\n${text}\n\n</details>`
}

/**
 * A user or assistant row whose text a page did not read: over MESSAGE_FIELD_MAX_BYTES the page carries only its size
 * (read-message-text.ts), so its layout cannot be read there. What the page knows without the text says what it holds:
 * `merged`, a summary merged into the message (Caduceus's `summaryMerged` marker), `summary` (v31's flag without that
 * marker: a summary, merged or not, which only the whole text tells), else `message`. Null: the text was read.
 */
export function unreadText(m: {
  role: string
  content: string | null
  contentBytes?: number
  summaryMerged?: boolean
  compressedSummary?: boolean
}): 'merged' | 'summary' | 'message' | null {
  if (m.role !== 'user' && m.role !== 'assistant') return null
  if (m.content || m.contentBytes === undefined || m.contentBytes <= MESSAGE_FIELD_MAX_BYTES) return null
  return m.summaryMerged ? 'merged' : m.compressedSummary ? 'summary' : 'message'
}

/** What this row is, when it is not simply a message of its role; null for the user's, model's and tools' own rows. */
export function classifyRow(m: RowFields): RowKind | null {
  const text = m.content ?? ''
  // leading whitespace as the SQL's ltrim takes it: spaces, tabs and line breaks only
  if (m.displayKind === 'hidden' || (m.role === 'user' && text.replace(/^[ \t\n\r]+/, '').startsWith('[System:')))
    return { kind: 'system_note' }
  if (isCompactionSummary(m.role, m.content, m.compressedSummary)) return { kind: 'summary' }
  if (m.displayKind === 'auto_continue' || (m.role === 'user' && text.trimStart().startsWith(RESUMED_NOTE)))
    return { kind: 'resumed' }
  const delegation = parseDelegationNotice(m)
  if (delegation) return { kind: 'delegation', notice: delegation }
  const process = parseProcessNotice(m)
  if (process) return { kind: 'process', notice: process }
  const stop = parseStoppedTurn(m)
  if (stop) return { kind: 'stopped', stop }
  if (/delegat|notice|process_complete/.test(m.displayKind ?? '')) return { kind: 'notice' }
  if (m.displayKind === 'steer' && m.role === 'user') return { kind: 'steer' }
  return null
}

/** A row in upstream's stored shape (an export's message: snake_case, tool calls as JSON text or a list). */
export function classifyStoredRow(m: Record<string, unknown>): RowKind | null {
  let calls = m.tool_calls
  if (typeof calls === 'string') calls = calls ? ['(tool calls)'] : null
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  return classifyRow({
    role: String(m.role),
    content: str(m.content),
    displayKind: str(m.display_kind),
    finishReason: str(m.finish_reason),
    toolCalls: Array.isArray(calls) ? (calls as unknown[]) : null,
    compressedSummary: m._compressed_summary === 1 || m._compressed_summary === true
  })
}

/** The words the transcript heads such a row with, for a reading in text. */
export const ROW_LABELS: Record<RowKind['kind'], string> = {
  system_note: 'System note',
  summary: 'Compaction summary',
  resumed: 'Notice',
  delegation: 'Notice',
  process: 'Notice',
  stopped: 'Notice',
  notice: 'Notice',
  steer: 'Steer'
}

function delegationText(n: DelegationNotice): string {
  const many = n.tasks.length > 1
  const head = `${many ? `Background delegation of ${n.tasks.length} tasks` : 'Background delegation'} ${n.delegationId}: ${n.status ?? 'finished'}${n.writer === 'upstream' ? ' (upstream)' : ''}.`
  const tasks = n.tasks.map((t, i) => {
    const status = many && t.status ? ` (${t.status})` : ''
    const outcome = t.outcome ? `\n${t.outcome}` : ''
    return `Task${many ? ` ${i + 1}` : ''}: ${t.goal || '(no goal given)'}${status}${outcome}`
  })
  const facts = n.facts.length ? [n.facts.map(([k, v]) => `${k}: ${v}`).join(' · ')] : []
  return [head, ...tasks, ...(n.error ? [`Error: ${n.error}`] : []), ...facts].join('\n\n')
}

function processText(n: ProcessNotice): string {
  const watch = n.kind === 'watch'
  const head = watch
    ? `Background process output matched: ${n.processId}, pattern “${n.pattern}”${n.suppressed ? ` (${n.suppressed} earlier matches held back)` : ''}`
    : `Background process finished: ${n.processId}, ${n.how}`
  const output = n.output ? `Output:\n${n.output}` : 'No output.'
  return [`${head}${n.writer === 'upstream' ? ' (upstream)' : ''}.`, `$ ${n.command}`, output].join('\n\n')
}

/** The row as text: the notice the transcript shows (its card's words), or the row's own text where it shows that. */
export function rowText(k: RowKind, content: string | null): string {
  switch (k.kind) {
    case 'resumed':
      return 'Resumed an interrupted turn.'
    case 'delegation':
      return delegationText(k.notice)
    case 'process':
      return processText(k.notice)
    case 'stopped':
      return stoppedTurnText(k.stop)
    default:
      return (content ?? '').trim()
  }
}
