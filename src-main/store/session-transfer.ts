/**
 * Export in upstream's JSONL shape (hermes-channels §4): one object per session — `SELECT *` of the row with
 * upstream column names plus `messages`, exactly what upstream's `export_session` returns: ACTIVE rows only,
 * `content` decoded from the multimodal marker (a list stays a list), `tool_calls` parsed (a list, never a
 * string). Rewound/compacted rows travel in `caduceus_inactive_messages`, a field upstream's import ignores,
 * so they never come back active or searchable there, while Caduceus's own import restores them inactive.
 * No filter = every session upstream's `export_all` covers (children included) with its `last_active`.
 * `lineage` merges a compression chain into the tip's dict (`segments`, `lineage_session_ids`).
 */
import type Database from 'better-sqlite3'
import { hasTable, stmt, type AllColumns } from './stmt-cache'
import type { messages, sessions, systemPrompts } from './schema'
import { compressionChain, kindOf, lineageRow } from './lineage'
import { existingColumns } from './reconcile'
import { CONTENT_MARKER, displayContent } from './content-codec'
import { parsePyJson, PyNumber } from '@shared/contract/py-text'
import { argsAreJsonObject, argsPreview } from '@shared/contract/tool-args'
import { pairResults, storedCalls } from '@shared/contract/tool-pairing'
import { toolResultText } from '@shared/contract/tool-result-text'
import { parseJsonOr } from '@shared/contract/errors'
import {
  classifyStoredRow,
  foldedSummary,
  ROW_LABELS,
  rowText,
  storedMergedSummary
} from '@shared/contract/notice-rows'

export type ExportRecord = Record<string, unknown> & { id: string; messages: Array<Record<string, unknown>> }
export const INACTIVE_FIELD = 'caduceus_inactive_messages'

/**
 * A column's value for the record. Rows are read with safe integers (`exactRows`), so an integer past 2**53 (a token
 * counter, a token_count) keeps its digits as a PyNumber, which the export writes as them; the rest are plain numbers.
 */
const exactInt = (v: bigint): number | PyNumber => {
  const n = Number(v)
  return Number.isSafeInteger(n) ? n : new PyNumber(v.toString(), false)
}

/**
 * `floats`: a whole REAL value (a timestamp, a cost) as a float PyNumber, which a JSONL export writes as Python's
 * `json.dumps` does (`1500000000.0`). Safe integers read INTEGER storage as bigint, so a plain number here is REAL.
 * Off for the Markdown, HTML and trace exports, which read these values as numbers.
 */
const floatOf = (v: number, floats: boolean): number | PyNumber =>
  floats && Number.isInteger(v) ? new PyNumber(`${v}.0`, true) : v

const plain = (row: Record<string, unknown>, floats = false) =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      Buffer.isBuffer(v)
        ? v.toString('base64')
        : typeof v === 'bigint'
          ? exactInt(v)
          : typeof v === 'number'
            ? floatOf(v, floats)
            : v
    ])
  )

/** A statement of this export's own (not the shared cache's: safe integers are a statement's setting) that reads exactly. */
const exactRows = <R>(db: Database.Database, sql: string) => stmt<R>(db, `${sql} -- exact integers`).safeIntegers(true)

/** A JSON field as upstream's json.loads reads it: every integer to the digit, a whole float still a float. */
const exactJson = (text: string, fallback: unknown): unknown => {
  try {
    return parsePyJson(text, true)
  } catch (err) {
    if (err instanceof SyntaxError) return fallback // not JSON: what upstream's get_messages falls back to
    throw err
  }
}

function sessionDict(db: Database.Database, id: string, floats: boolean): Record<string, unknown> | null {
  const row = exactRows<AllColumns<typeof sessions>>(db, 'SELECT * FROM main.sessions WHERE id = ?').get(id)
  if (!row) return null
  const out = plain(row, floats)
  // The prompt travels as text: the importing home stores it in its own shape (hash table or inline column).
  if (out.system_prompt == null && typeof out.system_prompt_hash === 'string' && hasTable(db, 'system_prompts')) {
    out.system_prompt =
      stmt<(typeof systemPrompts.$inferSelect)['prompt']>(db, 'SELECT prompt FROM system_prompts WHERE hash = ?')
        .pluck()
        .get(out.system_prompt_hash) ?? null
  }
  return out
}

/** One message as upstream's `get_messages` returns it. */
function upstreamMessage(row: Record<string, unknown>, floats: boolean): Record<string, unknown> {
  const m = plain(row, floats)
  if (typeof m.content === 'string' && m.content.startsWith(CONTENT_MARKER))
    m.content = exactJson(m.content.slice(CONTENT_MARKER.length), m.content) // undecodable: raw, as upstream
  if (m.tool_calls) m.tool_calls = exactJson(String(m.tool_calls), []) // [] for an unparseable value, as upstream
  return m
}

function messagesOf(
  db: Database.Database,
  id: string,
  floats: boolean
): { active: Array<Record<string, unknown>>; inactive: Array<Record<string, unknown>> } {
  const hasActive = existingColumns(db, 'messages').has('active')
  const rows = exactRows<AllColumns<typeof messages>>(
    db,
    'SELECT * FROM main.messages WHERE session_id = ? ORDER BY id'
  ).all(id)
  const active: Array<Record<string, unknown>> = []
  const inactive: Array<Record<string, unknown>> = []
  for (const r of rows) (!hasActive || Number(r.active) === 1 ? active : inactive).push(upstreamMessage(r, floats))
  return { active, inactive }
}

function exportOne(db: Database.Database, id: string, floats = false): ExportRecord | null {
  const dict = sessionDict(db, id, floats)
  if (!dict) return null
  const { active, inactive } = messagesOf(db, id, floats)
  return { ...dict, id, messages: active, ...(inactive.length ? { [INACTIVE_FIELD]: inactive } : {}) }
}

/**
 * `read` in one read transaction: its statements see one snapshot of the home, so a record's session row and its
 * messages (a lineage record's every segment) agree although another program commits between them — upstream writes a
 * turn message by message, each with its count, and two plain reads could show the count of one and the rows of
 * another. Never spans a yield: the caller hands out what it returned after the transaction ended.
 */
function snapshot<T>(db: Database.Database, read: () => T): T {
  return db.inTransaction ? read() : db.transaction(read).deferred()
}

/** A continuation (not the root) of a compression chain: exported inside its root's record under `lineage`. */
function isContinuation(db: Database.Database, id: string): boolean {
  const row = lineageRow(db, id)
  if (!row?.parent_session_id) return false
  const parent = lineageRow(db, row.parent_session_id)
  return parent !== undefined && kindOf(row, parent) === 'continuation'
}

/** Every session, most recently used first, with upstream's computed `last_active` (its `search_sessions`). */
function allIds(db: Database.Database): Array<{ id: string; last_active: number }> {
  return stmt<{ id: string; last_active: number }>(
    db,
    `SELECT s.id, COALESCE(m.last_active, s.started_at) AS last_active FROM main.sessions s
      LEFT JOIN (SELECT session_id, MAX(timestamp) AS last_active FROM main.messages GROUP BY session_id) m
        ON m.session_id = s.id
      ORDER BY last_active DESC, s.started_at DESC, s.id DESC`
  ).all()
}

/**
 * An exact session id, or the one session whose id starts with `prefix` (upstream's `resolve_session_id`, which
 * `hermes sessions export --session-id` takes); null when none or several match.
 */
export function resolveSessionId(db: Database.Database, prefix: string): string | null {
  if (stmt(db, 'SELECT 1 FROM main.sessions WHERE id = ?').get(prefix)) return prefix
  const like = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%'
  const ids = stmt<(typeof sessions.$inferSelect)['id']>(
    db,
    "SELECT id FROM main.sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 2"
  )
    .pluck()
    .all(like)
  return ids.length === 1 ? ids[0]! : null
}

/**
 * `sessionId`: that session; `ids`: those, in that order (a filtered export: upstream's `export_session` of each,
 * without `last_active`); neither: every session (`export_all`, with `last_active`).
 */
export function* exportRecords(
  db: Database.Database,
  opts: { sessionId?: string; ids?: string[]; lineage?: boolean; floats?: boolean } = {}
): Generator<ExportRecord> {
  const floats = opts.floats === true
  const rows = opts.sessionId
    ? [{ id: opts.sessionId, last_active: undefined }]
    : opts.ids
      ? opts.ids.map((id) => ({ id, last_active: undefined }))
      : allIds(db)
  // a selection (`ids`) keeps every selected segment: one record per chain, at the first of its segments selected
  const covered = new Set<string>()
  for (const { id, last_active } of rows) {
    if (opts.lineage) {
      if (opts.ids ? covered.has(id) : !opts.sessionId && isContinuation(db, id)) continue
      // Upstream's export_session_lineage: a session compression never continued is a lineage of one (segments too).
      const { chain, segments } = snapshot(db, () => {
        const ids = compressionChain(db, id).map((r) => r.id)
        return {
          chain: ids,
          segments: ids.map((sid) => exportOne(db, sid, floats)).filter((s): s is ExportRecord => !!s)
        }
      })
      for (const sid of chain) covered.add(sid)
      if (segments.length > 0) {
        const tip = segments[segments.length - 1]!
        const inactive = segments.flatMap((s) => (s[INACTIVE_FIELD] as Array<Record<string, unknown>>) ?? [])
        yield {
          ...tip,
          segments,
          lineage_session_ids: segments.map((s) => s.id),
          message_count: segments.reduce((n, s) => n + s.messages.length, 0),
          messages: segments.flatMap((s) => s.messages),
          ...(inactive.length ? { [INACTIVE_FIELD]: inactive } : {})
        }
        continue
      }
    }
    const rec = snapshot(db, () => exportOne(db, id, floats))
    if (!rec) continue
    if (last_active === undefined) yield rec
    else {
      // upstream's key order: the session's columns, `last_active` (REAL: a float to upstream), then its messages
      const { messages: msgs, [INACTIVE_FIELD]: inactive, ...row } = rec
      const after = inactive !== undefined ? { [INACTIVE_FIELD]: inactive } : {}
      yield { ...row, last_active: floatOf(last_active, floats), messages: msgs, ...after } as ExportRecord
    }
  }
}

/** Largest |epoch ms| a Date holds (±100,000,000 days). */
const MAX_DATE_MS = 8.64e15
/**
 * An epoch in seconds as ISO text; a value no Date can hold (a time past year 275760, an infinite one — both
 * stored as upstream's import stores them) as it is written, so one odd row never fails the whole export.
 */
function when(ts: unknown): string {
  const ms = (Number(ts) || 0) * 1000
  return Math.abs(ms) <= MAX_DATE_MS ? new Date(ms).toISOString() : `${String(ts)} (out of range)`
}

/** A code span that holds `text` whole, whatever backticks it contains. */
function codeSpan(text: string): string {
  const ticks = '`'.repeat(Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length)) + 1)
  return text.startsWith('`') || text.endsWith('`') ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`
}

/** A fenced block that holds `text` whole: its fence longer than any backtick run inside. */
function fenced(text: string, lang = ''): string {
  const fence = '`'.repeat(Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length)) + 1)
  return `${fence}${lang}\n${text}\n${fence}`
}

/** A result as the transcript reads it: its outcome, then its text in a fence (never the stored JSON). */
function resultMarkdown(content: string, tool: string | null): string[] {
  const r = toolResultText(content, tool)
  return [`Result${r.status ? ` (${r.status})` : ''}:`, '', fenced(r.lines.join('\n'), 'text'), '']
}

/**
 * Caduceus's Markdown for people (`--format markdown`, the app's download): a heading per session, then each message
 * under its role; each tool call under the message that made it, with its arguments read as text and its result
 * under it, read by its shape (tool-result-text.ts); notices, notes to the model and compression summaries headed
 * as what they are, in the transcript's words (shared/contract/notice-rows.ts); attachments as placeholders. Upstream's md/qmd files are
 * host/cli/export-md-files.ts.
 */
export function toMarkdown(r: ExportRecord): string {
  const title = typeof r.title === 'string' && r.title ? r.title : r.id
  const lines = [
    `# ${title}`,
    '',
    `- id: \`${r.id}\``,
    `- source: ${String(r.source ?? 'unknown')}`,
    `- started: ${when(r.started_at)}`,
    ''
  ]
  // upstream's rows in the pairing's terms (an id may repeat in a session: shared/contract/tool-pairing.ts)
  const rows = r.messages.map((m) => ({
    m,
    role: String(m.role),
    toolCallId: typeof m.tool_call_id === 'string' ? m.tool_call_id : null,
    toolCalls: storedCalls(m)
  }))
  const pairs = pairResults(rows)
  const toolOf = (m: Record<string, unknown>) => (typeof m.tool_name === 'string' ? m.tool_name : null)
  for (const row of rows) {
    const m = row.m
    if (m.role === 'tool') {
      if (pairs.paired.has(row)) continue // shown under its call
      lines.push(`## tool · ${toolOf(m) ?? 'unknown'} · ${when(m.timestamp)}`, '')
      lines.push(
        '_Its call is not in this session._',
        '',
        ...resultMarkdown(displayContent(m.content) ?? '', toolOf(m))
      )
      continue
    }
    // a notice, a note to the model or a compression summary: headed as what it is, in the transcript's words
    // (shared/contract/notice-rows.ts), not as the user's or the model's
    const kind = classifyStoredRow(m)
    const label = kind ? ROW_LABELS[kind.kind].toLowerCase() : String(m.role)
    lines.push(`## ${label} · ${when(m.timestamp)}`, '')
    // a compression summary folded, as the transcript folds it; one merged into a message after the message's words
    const merged = kind ? null : storedMergedSummary(m)
    const text = kind ? rowText(kind, displayContent(m.content) ?? null) : displayContent(m.content)
    if (merged) lines.push(...(merged.kept.trim() ? [merged.kept.trim(), ''] : []), foldedSummary(merged.summary), '')
    else if (text) lines.push(kind?.kind === 'summary' ? foldedSummary(text) : text, '')
    for (const c of row.toolCalls) {
      const preview = argsPreview(c.arguments)
      lines.push(`**Tool call: ${c.name}**${preview ? ` ${codeSpan(preview)}` : ''}`, '')
      // a summary cut short, or arguments that are not JSON: the whole as sent
      if (preview.endsWith('…') || !argsAreJsonObject(c.arguments))
        lines.push(fenced(prettyJson(c.arguments), 'json'), '')
      const res = pairs.resultOf(row, c.id)?.m
      if (res) lines.push(...resultMarkdown(displayContent(res.content) ?? '', toolOf(res) ?? c.name))
    }
  }
  return lines.join('\n')
}

function prettyJson(text: string): string {
  const v = parseJsonOr(text, undefined)
  return v === undefined ? text : JSON.stringify(v, null, 2)
}
