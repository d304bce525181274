/**
 * Import of upstream's JSONL (its `import_sessions` rules, hermes-channels §4): existing ids skipped, a child
 * whose parent is neither in the home nor in the payload detached, only the columns upstream's import writes
 * written (live runtime state left at this home's defaults), every message of `messages` stored active by
 * upstream's `_insert_message_rows` rules: multimodal `content` re-marked, `tool_calls` and the reasoning JSON
 * columns stored as JSON text. An id on several lines is taken from the first; the rest are reported by line. Caduceus's own export adds `caduceus_inactive_messages`
 * (restored inactive, interleaved by their original ids) and, with `--lineage`, `segments` (restored as the
 * chain's own sessions). Parsing goes in chunks that yield to the event loop; a bad line rejects that line.
 * Writing goes in bounded batches, each its own transaction (import-batches.ts).
 */
import type Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { hasTable, stmt, type ColumnsOf } from './stmt-cache'
import type { sessions } from './schema'
import { dropUsageRows } from './usage-rows'
import { existingColumns } from './reconcile'
import { hasIdentity, MessageIdentity } from './message-identity'
import {
  parsePyJson,
  pyJson,
  PyNumber,
  pyStr,
  pyStrip,
  pyTruthy,
  pyFloatValue,
  pyIntValue,
  pythonBigInt
} from '@shared/contract/py-text'
import { encodeContent } from './content-codec'
import { INACTIVE_FIELD } from './session-transfer'
import { normalizeNulRows, nulMessageIds } from './fts-nul'
import { nowSeconds } from './util'
import { errorMessage } from '@shared/contract/errors'
import { CaduceusError } from '@shared/contract'

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

/**
 * The session columns upstream's import writes (its `import_sessions` INSERT); every other column — gateway routing
 * (session_key, chat/thread ids, origin), handoff, rewind and compression counters, activity, pins, read marks, the
 * exporting machine's profile and transport — keeps this home's default: an import restores history, not ownership
 * of a live channel. `message_count`/`tool_call_count` are counted from the rows imported; the prompt's hash is
 * Caduceus's (kept with the prompt it names).
 */
const TEXT = [
  'user_id',
  'model',
  'system_prompt',
  'end_reason',
  'cwd',
  'git_branch',
  'git_repo_root',
  'billing_provider',
  'billing_base_url',
  'billing_mode',
  'cost_status',
  'cost_source',
  'pricing_version',
  'title'
] as const
const INTS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'api_call_count'
] as const
const FLOATS = ['ended_at', 'estimated_cost_usd', 'actual_cost_usd'] as const
/** Message fields upstream checks as text (`message_id` is a platform's name for `platform_message_id`). */
const MESSAGE_TEXT = [
  'tool_call_id',
  'tool_name',
  'effect_disposition',
  'finish_reason',
  'reasoning',
  'reasoning_content',
  'platform_message_id',
  'message_id'
]
/** Keys of the export shape that are not columns. */
const SESSION_EXTRAS = new Set(['messages', 'segments', 'lineage_session_ids', 'last_active', INACTIVE_FIELD])
const MESSAGE_EXTRAS = new Set(['id', 'session_id', 'message_id'])
/** Reasoning JSON columns: stored only on assistant rows, as upstream's `_insert_message_rows` stores them. */
const JSON_COLUMNS = ['reasoning_details', 'codex_reasoning_items', 'codex_message_items'] as const
const MAX_MESSAGES_PER_SESSION = 200_000
const SLICE_MS = 8

const yieldNow = () => new Promise<void>((r) => setImmediate(r))

/**
 * Python's `float(v)` of a JSON value, null where it raises. Kept as upstream keeps it: a time far past year 9999
 * (`1e13`) or infinite (`1e999`, `"inf"`) is stored as written, and readers show such a value raw. NaN is null:
 * upstream's NOT NULL columns refuse it and its whole import fails; here the field's default stands instead.
 */
function pyFloat(v: unknown): number | null {
  const n = pyFloatValue(v)
  return n === null || Number.isNaN(n) ? null : n
}
/**
 * Python's `int(v)` (`pyIntValue`) as upstream's import binds it: an integer past 2**53 to the digit (a BigInt: Python keeps every digit), and
 * one past 64 bits an error, as Python's sqlite3 raises binding it (upstream's whole import fails; here the line).
 */
function boundInt(v: unknown): number | bigint | null {
  let big: bigint
  if (v instanceof PyNumber && !v.isFloat) big = BigInt(v.text)
  else if (typeof v === 'string') {
    const n = pythonBigInt(v)
    if (n === null) return null
    big = n
  } else {
    const n = pyIntValue(v)
    if (n === null || Number.isSafeInteger(n)) return n
    big = BigInt(n) // a float's whole value, exact
  }
  if (big !== BigInt.asIntN(64, big)) throw new Error('Python int too large to convert to SQLite INTEGER')
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big
}

/** A JSON object (Python's dict): not a list, and not a number kept as a PyNumber. */
const isDict = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof PyNumber)

/** Python's `json.loads` of text (its NaN and Infinity too, numbers as they are spelled), undefined where it raises. */
function pyLoads(text: string): unknown {
  try {
    return parsePyJson(text, true)
  } catch {
    return undefined // not JSON: the caller's rule for that
  }
}

/** `model_config` as upstream accepts it: a JSON object, or text that parses to one (kept as written). */
function modelConfig(v: unknown): string | null | false {
  if (v == null) return null
  if (typeof v === 'string') return isDict(pyLoads(v)) ? v : false
  return isDict(v) ? pyJson(v) : false
}

/**
 * A record's id as upstream's import reads it, `str(raw.get("id") or "").strip()`: a number or any other JSON value is
 * its Python text (`42`, `4.0`, `1e+16`, `True`), a false one (0, false, '') none.
 */
const sessionIdOf = (v: unknown): string => (pyTruthy(v) ? pyStrip(pyStr(v)) : '')

/** Upstream's per-record checks; the message names the first offending field. */
function check(v: unknown): string | null {
  if (!isDict(v)) return 'not a JSON object'
  const r = v
  const id = sessionIdOf(r.id)
  if (id === '' || id.length > 512) return 'session id is required'
  for (const f of ['source', 'parent_session_id', ...TEXT])
    if (r[f] != null && typeof r[f] !== 'string') return `${f} must be a string`
  if (modelConfig(r.model_config) === false) return 'model_config must be a JSON object'
  for (const key of ['messages', INACTIVE_FIELD]) {
    const ms = r[key] ?? []
    if (!Array.isArray(ms)) return `${key} must be a list`
    if (ms.length > MAX_MESSAGES_PER_SESSION) return `more than ${MAX_MESSAGES_PER_SESSION} messages`
    for (const [i, m] of ms.entries()) {
      if (!isDict(m)) return `${key}[${i}] must be an object`
      const mm = m
      if (typeof mm.role !== 'string' || !mm.role) return `${key}[${i}].role must be a non-empty string`
      for (const f of MESSAGE_TEXT)
        if (mm[f] != null && typeof mm[f] !== 'string') return `${key}[${i}].${f} must be a string`
      if (mm.token_count != null && pyIntValue(mm.token_count) === null)
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
  // a byte order mark (an editor's UTF-8 file) is not part of line 1
  let start = content.startsWith('\ufeff') ? 1 : 0
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
      // Python's json tokens too (NaN, Infinity: upstream's export writes them), and each number as Python reads it
      v = parsePyJson(text, true)
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
    records.push({ line, rec: withId(v as Record<string, unknown>) })
  }
  return { records, errors }
}

/** A record checked by `check`, its id as the text upstream reads it. */
const withId = (rec: Record<string, unknown>) =>
  typeof rec.id === 'string' ? rec : { ...rec, id: sessionIdOf(rec.id) }

/** `--lineage` records carry each chain segment whole: restore them as the chain's own sessions. */
export function expandSegments(records: ParsedRecord[]): ParsedRecord[] {
  return records.flatMap((p) =>
    Array.isArray(p.rec.segments) && p.rec.segments.every((s) => check(s) === null)
      ? (p.rec.segments as Array<Record<string, unknown>>).map((rec) => ({ line: p.line, rec: withId(rec) }))
      : [p]
  )
}

/** Upstream's count of a message's calls: a list's length, any other value present one call (even '' or {}). */
const callCount = (tc: unknown): number => (tc == null ? 0 : Array.isArray(tc) ? tc.length : 1)

const q = (c: string) => `"${c.replace(/"/g, '""')}"`
const count = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1)
const text = (v: unknown) => (typeof v === 'string' ? v : null)

/** A reasoning JSON value: text that parses is re-written as Python writes it, anything else dumped; empty → NULL. */
function reasoningJson(v: unknown): string | null {
  if (typeof v === 'string') v = pyLoads(v) ?? v // not JSON: kept as text, dumped as a JSON string as upstream does
  return pyTruthy(v) ? pyJson(v) : null
}

/**
 * One message row by upstream's `_insert_message_rows`: reasoning kept on assistant rows only, `message_id` a
 * fallback name for `platform_message_id`, `tool_calls` and the reasoning lists NULL when empty. Every row of
 * `messages` is stored active; Caduceus's own inactive rows come back inactive, `compacted` as they were.
 */
function messageRow(m: Record<string, unknown>, active: boolean, clock: number): Record<string, unknown> {
  const assistant = m.role === 'assistant'
  const row: Record<string, unknown> = {
    role: m.role,
    content: encodeContent(m.content),
    tool_call_id: text(m.tool_call_id),
    tool_calls: pyTruthy(m.tool_calls) ? pyJson(m.tool_calls) : null,
    tool_name: text(m.tool_name),
    effect_disposition: text(m.effect_disposition),
    timestamp: pyFloat(m.timestamp) ?? clock,
    token_count: boundInt(m.token_count),
    finish_reason: text(m.finish_reason),
    reasoning: assistant ? text(m.reasoning) : null,
    reasoning_content: assistant ? text(m.reasoning_content) : null,
    platform_message_id: text(m.platform_message_id) || text(m.message_id),
    observed: pyTruthy(m.observed) ? 1 : 0,
    active: active ? 1 : 0
  }
  for (const c of JSON_COLUMNS) row[c] = assistant ? reasoningJson(m[c]) : null
  if (!active) row.compacted = pyTruthy(m.compacted) ? 1 : 0
  return row
}

/** What one transaction (or one slice of it) did; counted into the summary only once its transaction committed. */
export interface BatchReport {
  landed: string[]
  skipped: number
  detached: number
  errors: ImportSummary['errors']
  ignoredFields: Record<string, number>
  /** Index in the plan of the first session not reached yet. */
  next: number
}

/**
 * A session whose rows are being written across slices: its savepoint stays open on the import's connection between
 * them (the caller's transaction does not commit meanwhile), and `steps` writes the next rows when driven.
 */
export interface SessionInProgress {
  id: string
  line: number
  steps: Generator<number | undefined, SessionCounts, void>
}

/** Rows of one session written between two looks at the clock: ~3 ms at upstream's ~75 µs of indexing a message. */
const ROWS_PER_STEP = 40
/**
 * Text written between two looks at the clock, whatever the number of rows: indexing runs at ~10 characters per µs
 * (a 480 KB message alone is ~35–60 ms in the FTS triggers), so forty long messages were one block of the loop.
 */
const CHARS_PER_STEP = 64_000
const textSize = (row: Record<string, unknown>) => {
  let n = 0
  for (const v of Object.values(row)) if (typeof v === 'string') n += v.length
  return n
}
const SAVEPOINT = 'cad_import_session'

/**
 * The sessions of `ordered` from `from` on, in the caller's write transaction, each in its own savepoint (a
 * session lands whole with its messages, or not at all), until the transaction's `room` is used up (`full`: so many
 * sessions, or a session whose rows would not fit — one that alone is larger still goes into an `empty`
 * transaction) or the next session would, at the slice's pace so far, end past `budgetMs` (at least one is
 * written). A session with more rows than the budget allows is itself cut between slices (`inProgress`, which the
 * next call takes as `resume` and finishes first): one long conversation never holds the event loop for its whole
 * length. Sessions already in the home — another program's, or an earlier transaction's — are skipped, within the
 * same time budget. `rows`: session and message rows written or begun.
 */
export function importBatch(
  db: Database.Database,
  ordered: ParsedRecord[],
  from: number,
  room: { sessions: number; rows: number; empty: boolean },
  budgetMs: number,
  resume: SessionInProgress | null = null
): BatchReport & { rows: number; full: boolean; inProgress: SessionInProgress | null } {
  const report: BatchReport = { landed: [], skipped: 0, detached: 0, errors: [], ignoredFields: {}, next: from }
  const cols = {
    sessions: existingColumns(db, 'sessions'),
    messages: existingColumns(db, 'messages'),
    prompts: hasTable(db, 'system_prompts')
  }
  const began = performance.now()
  let inProgress = resume
  /** Writes the session in progress until it is done (true: landed or failed) or the budget is spent. */
  const drive = (): boolean => {
    const { id, line, steps } = inProgress!
    for (;;) {
      let step: IteratorResult<number | undefined, SessionCounts>
      try {
        step = steps.next()
      } catch (err) {
        db.exec(`ROLLBACK TO ${SAVEPOINT}`)
        db.exec(`RELEASE ${SAVEPOINT}`)
        report.errors.push({ id, line, reason: errorMessage(err).split('\n')[0]!.slice(0, 300) })
        inProgress = null
        return true
      }
      if (step.done) {
        db.exec(`RELEASE ${SAVEPOINT}`)
        // counted only once the session's rows are in: a session that fails leaves no trace but its error
        report.landed.push(id)
        if (step.value.detached) report.detached++
        for (const [k, n] of Object.entries(step.value.ignored))
          report.ignoredFields[k] = (report.ignoredFields[k] ?? 0) + n
        inProgress = null
        return true
      }
      // a long message coming (the step paused before it, saying its size) starts a slice of its own
      const spent = performance.now() - began
      if (spent >= budgetMs || (step.value !== undefined && spent > 1)) return false
    }
  }
  if (inProgress && !drive()) return { ...report, rows: 0, full: false, inProgress }
  let written = 0
  let rows = 0 // sessions and messages written so far: the slice's pace
  let full = false
  while (report.next < ordered.length) {
    const { line, rec } = ordered[report.next]!
    const size = 1 + rowsOf(rec, 'messages') + rowsOf(rec, INACTIVE_FIELD)
    if (written >= room.sessions || (rows + size > room.rows && (written > 0 || !room.empty))) {
      full = true
      break
    }
    if (report.next > from) {
      // stop at the budget, or before a session that would carry the slice past it at this slice's pace so far
      const spent = performance.now() - began
      if (spent >= budgetMs || (written > 0 && spent + (spent / rows) * size > budgetMs)) break
    }
    report.next++
    const id = String(rec.id).trim()
    if (stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(id)) {
      report.skipped++
      continue
    }
    written++
    rows += size
    db.exec(`SAVEPOINT ${SAVEPOINT}`)
    inProgress = { id, line, steps: importSession(db, id, rec, cols) }
    if (!drive()) break
  }
  return { ...report, rows, full, inProgress }
}

const rowsOf = (rec: Record<string, unknown>, key: string) => (Array.isArray(rec[key]) ? rec[key].length : 0)

/** What a session's import adds to the report once it landed. */
interface SessionCounts {
  detached: boolean
  ignored: Record<string, number>
}

/**
 * One session with its messages (inside the batch's savepoint), written as it is driven: it pauses every
 * ROWS_PER_STEP messages or CHARS_PER_STEP characters so the caller can look at the clock, and before a long
 * message with that message's size (the caller gives it a slice of its own). Its counts are its return value.
 */
function* importSession(
  db: Database.Database,
  id: string,
  rec: Record<string, unknown>,
  cols: { sessions: Set<string>; messages: Set<string>; prompts: boolean }
): Generator<number | undefined, SessionCounts, void> {
  const { sessions: sessionCols, messages: messageCols, prompts } = cols
  const ignored: Record<string, number> = {}
  for (const k of Object.keys(rec)) if (!sessionCols.has(k) && !SESSION_EXTRAS.has(k)) count(ignored, k)
  const row: Record<string, unknown> = { id }
  row.source = text(rec.source) || 'import'
  row.started_at = pyFloat(rec.started_at) ?? nowSeconds()
  for (const c of TEXT) row[c] = text(rec[c])
  for (const c of INTS) row[c] = boundInt(rec[c]) ?? 0
  for (const c of FLOATS) row[c] = pyFloat(rec[c])
  row.model_config = modelConfig(rec.model_config) || null
  row.archived = pyTruthy(rec.archived) ? 1 : 0
  let detached = false
  const parent = typeof rec.parent_session_id === 'string' ? rec.parent_session_id.trim() : ''
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
      stmt(db, 'INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)').run(row.system_prompt_hash, prompt)
  }
  const raw = [
    ...((rec.messages as Array<Record<string, unknown>> | undefined) ?? []).map((m) => ({ m, active: true })),
    ...((rec[INACTIVE_FIELD] as Array<Record<string, unknown>> | undefined) ?? []).map((m) => ({
      m,
      active: false
    }))
  ].sort((a, b) => (Number(a.m.id) || 0) - (Number(b.m.id) || 0)) // interleaved by their original ids
  for (const { m } of raw)
    for (const k of Object.keys(m)) if (!messageCols.has(k) && !MESSAGE_EXTRAS.has(k)) count(ignored, `messages.${k}`)
  // upstream's import counts the rows it imports (its export's active ones). Caduceus's own inactive rows come back
  // inactive, counted as the exporting home counted them: a rewind (upstream's, Caduceus's) leaves the session's
  // counts as they were, compaction sets them to the live rows — the record's count says which, when it is one of
  // those two; anything else is the live rows, as upstream's import counts them
  const live = raw.filter((r) => r.active)
  const calls = (rows: typeof raw) => rows.reduce((n, r) => n + callCount(r.m.tool_calls), 0)
  const kept = raw.length > live.length && pyIntValue(rec.message_count) === raw.length
  row.message_count = kept ? raw.length : live.length
  row.tool_call_count = kept && pyIntValue(rec.tool_call_count) === calls(raw) ? calls(raw) : calls(live)
  // Titles are unique in a home (upstream creates idx_sessions_title_unique on every open): a title another session
  // holds is refused here, not only where that index exists — a home Caduceus created lacks it, and a duplicate
  // there would be resolved by upstream's next open clearing the OLDER session's title.
  if (typeof row.title === 'string' && row.title) {
    const holder = stmt<ColumnsOf<typeof sessions, 'id'>>(db, 'SELECT id FROM sessions WHERE title = ? LIMIT 1').get(
      row.title
    )
    if (holder)
      throw new CaduceusError('conflict', `Title '${row.title}' is already in use by session ${holder.id}`, 'title')
  }
  dropUsageRows(db, [id]) // left behind by another program's delete of this id
  insertRow(db, 'sessions', sessionCols, row)
  // v31 identity as upstream's import keeps it: the uids the export carries, the missing ones minted and paired
  const identity = hasIdentity(messageCols) ? new MessageIdentity() : null
  // A pause (the caller looks at the clock) every ROWS_PER_STEP rows or CHARS_PER_STEP characters, and before a row
  // that would carry a step past that much text: a long message starts a step of its own, never ends a full one.
  let rows = 0
  let chars = 0
  let fresh = false // just paused: a session's first row follows whatever the slice wrote before it
  // upstream's clock for a row without a time it can read: the insert's time, then past every row's time by 1 µs
  let clock = nowSeconds()
  for (const { m, active } of raw) {
    const base = messageRow(m, active, clock)
    clock = Math.max(clock + 1e-6, Number(base.timestamp) + 1e-6)
    const msg = {
      ...base,
      ...identity?.next(String(m.role), m.tool_calls, m.tool_call_id, m, active),
      session_id: id
    }
    const size = textSize(msg)
    if (!fresh && chars + size > CHARS_PER_STEP) {
      yield size
      rows = chars = 0
    }
    insertRow(db, 'messages', messageCols, msg)
    fresh = false
    chars += size
    if (++rows >= ROWS_PER_STEP || chars >= CHARS_PER_STEP) {
      yield
      rows = chars = 0
      fresh = true
    }
  }
  // a NUL in any indexed column (content, tool_name, tool_calls): indexed as upstream's SQLite indexes it
  normalizeNulRows(db, nulMessageIds(db, [id]))
  return { detached, ignored }
}

/** One row of the columns `row` names that this home has (an older home lacks some of a newer one's). */
function insertRow(db: Database.Database, table: string, cols: Set<string>, row: Record<string, unknown>): void {
  const names = Object.keys(row).filter((c) => cols.has(c))
  stmt(db, `INSERT INTO ${table} (${names.map(q).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
    ...names.map((c) => row[c])
  )
}
