/**
 * Import of upstream's JSONL (its `import_sessions` rules, hermes-channels §4): existing ids skipped, a child
 * whose parent is neither in the home nor in the payload detached, live runtime state reset, every message
 * of `messages` stored active (upstream's rule) with lists kept: multimodal `content` re-marked, `tool_calls`
 * and the reasoning JSON columns stored as JSON text. Caduceus's own export adds `caduceus_inactive_messages`
 * (restored inactive, interleaved by their original ids) and, with `--lineage`, `segments` (restored as the
 * chain's own sessions). Parsing goes in chunks that yield to the event loop; a bad line rejects that line.
 */
import type Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { stmt } from './stmt-cache'
import { existingColumns } from './reconcile'
import { pyJson } from '@shared/contract/py-text'
import { encodeContent } from './content-codec'
import { INACTIVE_FIELD } from './session-transfer'
import { normalizeNulRows } from './fts-nul'
import { nowSeconds } from './util'
import { errorMessage } from '@shared/contract/errors'

export interface ImportSummary {
  imported: number
  skipped: number
  detached: number
  errors: Array<{ id: string; reason: string; line?: number }>
  /** Fields this home has no column for (a newer upstream's), by name → occurrences; ignored. */
  ignoredFields: Record<string, number>
}

export interface ParsedRecord {
  line: number
  rec: Record<string, unknown>
}

/** Runtime state that belongs to the machine that exported (live handoffs, cooldowns, routing keys). */
const RESET: Record<string, unknown> = {
  session_key: null,
  handoff_state: null,
  handoff_platform: null,
  handoff_error: null,
  compression_failure_cooldown_until: null,
  compression_failure_error: null,
  compression_recovery_deadline: null,
  last_activity_provenance: null
}
/** Keys of the export shape that are not columns. */
const SESSION_EXTRAS = new Set(['messages', 'segments', 'lineage_session_ids', 'last_active', INACTIVE_FIELD])
const MESSAGE_EXTRAS = new Set(['id', 'session_id', 'message_id'])
const JSON_COLUMNS = ['reasoning_details', 'codex_reasoning_items', 'codex_message_items']
const MAX_MESSAGES_PER_SESSION = 200_000
const SLICE_MS = 8

const yieldNow = () => new Promise<void>((r) => setImmediate(r))

/** Upstream's per-record checks; the message names the first offending field. */
function check(v: unknown): string | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object'
  const r = v as Record<string, unknown>
  if (typeof r.id !== 'string' || r.id.trim() === '' || r.id.length > 512) return 'session id is required'
  for (const f of ['source', 'title', 'model', 'parent_session_id', 'end_reason', 'cwd', 'user_id'])
    if (r[f] != null && typeof r[f] !== 'string') return `${f} must be a string`
  for (const key of ['messages', INACTIVE_FIELD]) {
    const ms = r[key] ?? []
    if (!Array.isArray(ms)) return `${key} must be a list`
    if (ms.length > MAX_MESSAGES_PER_SESSION) return `more than ${MAX_MESSAGES_PER_SESSION} messages`
    for (const [i, m] of ms.entries()) {
      if (!m || typeof m !== 'object' || Array.isArray(m)) return `${key}[${i}] must be an object`
      const mm = m as Record<string, unknown>
      if (typeof mm.role !== 'string' || !mm.role) return `${key}[${i}].role must be a non-empty string`
      for (const f of ['tool_call_id', 'tool_name', 'finish_reason', 'reasoning', 'reasoning_content'])
        if (mm[f] != null && typeof mm[f] !== 'string') return `${key}[${i}].${f} must be a string`
      if (mm.token_count != null && !Number.isFinite(Number(mm.token_count)))
        return `${key}[${i}].token_count must be an integer`
    }
  }
  return null
}

/** Splits and parses JSONL, yielding to the event loop every few milliseconds. Rejections carry line numbers. */
export async function parseJsonlChunked(
  content: string,
  maxSessions: number
): Promise<{ records: ParsedRecord[]; errors: ImportSummary['errors'] }> {
  const records: ParsedRecord[] = []
  const errors: ImportSummary['errors'] = []
  let start = 0
  let line = 0
  let slice = performance.now()
  while (start < content.length) {
    let end = content.indexOf('\n', start)
    if (end < 0) end = content.length
    const text = content.slice(start, end)
    start = end + 1
    line++
    if (performance.now() - slice > SLICE_MS) {
      await yieldNow()
      slice = performance.now()
    }
    if (!text.trim()) continue
    if (records.length >= maxSessions) {
      errors.push({ id: `line ${line}`, line, reason: `more than ${maxSessions} sessions; the rest was not imported` })
      break
    }
    let v: unknown
    try {
      v = JSON.parse(text)
    } catch (err) {
      if (errors.length < 1000) errors.push({ id: `line ${line}`, line, reason: `invalid JSON: ${errorMessage(err)}` })
      continue
    }
    const bad = check(v)
    if (bad) {
      const id = typeof (v as { id?: unknown })?.id === 'string' ? String((v as { id: string }).id) : `line ${line}`
      if (errors.length < 1000) errors.push({ id, line, reason: bad })
      continue
    }
    records.push({ line, rec: v as Record<string, unknown> })
  }
  return { records, errors }
}

/** `--lineage` records carry each chain segment whole: restore them as the chain's own sessions. */
export function expandSegments(records: ParsedRecord[]): ParsedRecord[] {
  return records.flatMap((p) =>
    Array.isArray(p.rec.segments) && p.rec.segments.every((s) => check(s) === null)
      ? (p.rec.segments as Array<Record<string, unknown>>).map((rec) => ({ line: p.line, rec }))
      : [p]
  )
}

/** Upstream counts a list's length, anything else present as one call. */
function callCount(stored: unknown): number {
  if (!stored) return 0
  try {
    const v = JSON.parse(String(stored)) as unknown
    return Array.isArray(v) ? v.length : 1
  } catch {
    return 1
  }
}

const q = (c: string) => `"${c.replace(/"/g, '""')}"`
const scalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number'
const count = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1)

function messageRow(m: Record<string, unknown>, active: boolean): Record<string, unknown> {
  const row: Record<string, unknown> = { ...m }
  row.content = encodeContent(m.content)
  const tc = m.tool_calls
  // upstream's import json.dumps every value, a string too (its get_messages then returns that string)
  row.tool_calls = !tc ? null : pyJson(tc)
  for (const c of JSON_COLUMNS) {
    const v = m[c]
    row[c] = !v ? null : typeof v === 'string' ? v : pyJson(v)
  }
  if (typeof row.observed === 'boolean') row.observed = row.observed ? 1 : 0
  // upstream's import marks every row active; an explicit inactive row (Caduceus's own) never comes back
  row.active = active && m.active !== 0 && m.active !== false ? 1 : 0
  if (typeof row.compacted === 'boolean') row.compacted = row.compacted ? 1 : 0
  return row
}

/** Imports in the caller's write transaction; each session in its own savepoint. Returns the ids imported. */
export function importRecords(db: Database.Database, parsed: ParsedRecord[], summary: ImportSummary): string[] {
  const sessionCols = existingColumns(db, 'sessions')
  const messageCols = existingColumns(db, 'messages')
  const prompts = stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'system_prompts'").get()
  const byId = new Map(parsed.map((p) => [p.rec.id, p.rec]))
  const depths = new Map(parsed.map((p) => [p, depth(p.rec, byId)]))
  const ordered = [...parsed].sort((a, b) => depths.get(a)! - depths.get(b)!)
  const done: string[] = []
  const seen = new Set<string>()
  for (const { line, rec } of ordered) {
    const id = String(rec.id).trim()
    if (seen.has(id)) {
      summary.errors.push({ id, line, reason: 'duplicate session id' })
      continue
    }
    seen.add(id)
    if (stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(id)) {
      summary.skipped++
      continue
    }
    try {
      db.transaction(() => {
        const msgs = [
          ...((rec.messages as Array<Record<string, unknown>> | undefined) ?? []).map((m) => messageRow(m, true)),
          ...((rec[INACTIVE_FIELD] as Array<Record<string, unknown>> | undefined) ?? []).map((m) =>
            messageRow(m, false)
          )
        ].sort((a, b) => (Number(a.id) || 0) - (Number(b.id) || 0))
        const row: Record<string, unknown> = { ...rec, ...RESET, id }
        for (const k of Object.keys(rec))
          if (!sessionCols.has(k) && !SESSION_EXTRAS.has(k) && k !== 'system_prompt') count(summary.ignoredFields, k)
        row.source = typeof row.source === 'string' && row.source ? row.source : 'import'
        row.started_at =
          Number.isFinite(Number(row.started_at)) && row.started_at !== null ? Number(row.started_at) : nowSeconds()
        row.archived = row.archived ? 1 : 0
        if (row.model_config != null && typeof row.model_config === 'object')
          row.model_config = pyJson(row.model_config)
        let detached = false
        const parent = typeof row.parent_session_id === 'string' ? row.parent_session_id.trim() : ''
        row.parent_session_id = null
        if (parent) {
          if (stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(parent)) row.parent_session_id = parent
          else detached = true
        }
        const prompt = typeof row.system_prompt === 'string' && row.system_prompt ? row.system_prompt : null
        if (prompts && sessionCols.has('system_prompt_hash')) {
          // Inline as well: an older upstream (v21, no system_prompts table in its eyes) reads only this column,
          // and an import into an empty root must read the same there; v25+ readers prefer the hash.
          row.system_prompt = prompt
          row.system_prompt_hash = prompt ? createHash('sha256').update(prompt, 'utf8').digest('hex') : null
          if (prompt)
            stmt(db, 'INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)').run(
              row.system_prompt_hash,
              prompt
            )
        } else row.system_prompt_hash = null
        // upstream's import counts the rows it imports (its export's active ones); Caduceus's own inactive rows,
        // restored inactive, are not part of the live count (as after upstream's rewind or compaction)
        const live = msgs.filter((m) => m.active === 1)
        row.message_count = live.length
        row.tool_call_count = live.reduce((n, m) => n + callCount(m.tool_calls), 0)
        const cols = Object.keys(row).filter((c) => sessionCols.has(c) && scalar(row[c]))
        db.prepare(`INSERT INTO sessions (${cols.map(q).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
          ...cols.map((c) => row[c])
        )
        const ids: number[] = []
        for (const m of msgs) {
          for (const k of Object.keys(m))
            if (!messageCols.has(k) && !MESSAGE_EXTRAS.has(k)) count(summary.ignoredFields, `messages.${k}`)
          const mrow: Record<string, unknown> = { ...m, session_id: id }
          delete mrow.id // ids are this home's own; order is kept
          if (!Number.isFinite(Number(mrow.timestamp)) || mrow.timestamp === null) mrow.timestamp = row.started_at
          const mc = Object.keys(mrow).filter((c) => messageCols.has(c) && scalar(mrow[c]) && c !== 'display_identity')
          const r = db
            .prepare(`INSERT INTO messages (${mc.map(q).join(', ')}) VALUES (${mc.map(() => '?').join(', ')})`)
            .run(...mc.map((c) => mrow[c]))
          if (typeof mrow.content === 'string' && mrow.content.includes('\u0000')) ids.push(Number(r.lastInsertRowid))
        }
        normalizeNulRows(db, ids)
        if (detached) summary.detached++
      })()
      summary.imported++
      done.push(id)
    } catch (err) {
      summary.errors.push({ id, line, reason: errorMessage(err).split('\n')[0]!.slice(0, 300) })
    }
  }
  return done
}

function depth(rec: Record<string, unknown>, byId: Map<unknown, Record<string, unknown>>): number {
  let d = 0
  let cur = rec
  const seen = new Set<unknown>()
  while (
    typeof cur.parent_session_id === 'string' &&
    byId.has(cur.parent_session_id) &&
    !seen.has(cur.id) &&
    d < 1000
  ) {
    seen.add(cur.id)
    cur = byId.get(cur.parent_session_id)!
    d++
  }
  return d
}
