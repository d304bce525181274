/**
 * Export and import in upstream's shapes (hermes-channels §4). Export: one `export_session` object per
 * `sessions` row — the row with upstream column names plus `"messages"` (every row, inactive ones included);
 * `lineage` merges a compression chain into the tip's dict with `segments`, `lineage_session_ids`, summed
 * `message_count` and all messages. Import (`import_sessions`): existing ids skipped, a child whose parent is
 * neither present nor in the payload detached, live runtime state reset, per-session errors reported.
 */
import type Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { stmt } from './stmt-cache'
import { compressionChain, kindOf, lineageRow } from './lineage'
import { existingColumns } from './reconcile'

export type ExportRecord = Record<string, unknown> & { id: string; messages: Array<Record<string, unknown>> }

const plain = (row: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      Buffer.isBuffer(v) ? v.toString('base64') : typeof v === 'bigint' ? Number(v) : v
    ])
  )

function sessionDict(db: Database.Database, id: string): Record<string, unknown> | null {
  const row = stmt(db, 'SELECT * FROM main.sessions WHERE id = ?').get(id) as Record<string, unknown> | undefined
  if (!row) return null
  const out = plain(row)
  // The prompt travels as text: the importing home stores it in its own shape (hash table or inline column).
  if (out.system_prompt == null && typeof out.system_prompt_hash === 'string' && hasTable(db, 'system_prompts')) {
    out.system_prompt =
      (stmt(db, 'SELECT prompt FROM system_prompts WHERE hash = ?').pluck().get(out.system_prompt_hash) as
        string | undefined) ?? null
  }
  return out
}

function messagesOf(db: Database.Database, id: string): Array<Record<string, unknown>> {
  return (
    stmt(db, 'SELECT * FROM main.messages WHERE session_id = ? ORDER BY id').all(id) as Array<Record<string, unknown>>
  ).map(plain)
}

const hasTable = (db: Database.Database, name: string) =>
  stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined

/** A continuation (not the root) of a compression chain: exported inside its root's record under `lineage`. */
function isContinuation(db: Database.Database, id: string): boolean {
  const row = lineageRow(db, id)
  if (!row?.parent_session_id) return false
  const parent = lineageRow(db, row.parent_session_id)
  return parent !== undefined && kindOf(row, parent) === 'continuation'
}

export function* exportRecords(
  db: Database.Database,
  opts: { sessionId?: string; lineage?: boolean } = {}
): Generator<ExportRecord> {
  const ids = opts.sessionId
    ? [opts.sessionId]
    : (stmt(db, 'SELECT id FROM main.sessions ORDER BY started_at, id').pluck().all() as string[])
  for (const id of ids) {
    if (opts.lineage) {
      if (!opts.sessionId && isContinuation(db, id)) continue
      const chain = compressionChain(db, id).map((r) => r.id)
      if (chain.length > 1) {
        const segments = chain.map((sid) => sessionDict(db, sid)!).filter(Boolean)
        const tip = segments[segments.length - 1]!
        yield {
          ...tip,
          id: String(tip.id),
          segments,
          lineage_session_ids: chain,
          message_count: segments.reduce((n, s) => n + (Number(s.message_count) || 0), 0),
          messages: chain.flatMap((sid) => messagesOf(db, sid))
        }
        continue
      }
    }
    const dict = sessionDict(db, id)
    if (dict) yield { ...dict, id, messages: messagesOf(db, id) }
  }
}

/** Markdown for people: a heading per session, then each message under its role. */
export function toMarkdown(r: ExportRecord, onlyUserPrompts = false): string {
  const title = typeof r.title === 'string' && r.title ? r.title : r.id
  const lines = [
    `# ${title}`,
    '',
    `- id: \`${r.id}\``,
    `- source: ${String(r.source ?? 'unknown')}`,
    `- started: ${new Date((Number(r.started_at) || 0) * 1000).toISOString()}`,
    ''
  ]
  for (const m of r.messages) {
    if (onlyUserPrompts && m.role !== 'user') continue
    const when = new Date((Number(m.timestamp) || 0) * 1000).toISOString()
    lines.push(
      `## ${String(m.role)} · ${when}`,
      '',
      String(m.content ?? (m.tool_calls ? `tool calls: ${String(m.tool_calls)}` : '')),
      ''
    )
  }
  return lines.join('\n')
}

/** `only = user-prompts`: one record per user prompt. */
export function userPrompts(r: ExportRecord): Array<Record<string, unknown>> {
  return r.messages
    .filter((m) => m.role === 'user')
    .map((m) => ({
      session_id: r.id,
      session_title: r.title ?? null,
      message_id: m.id,
      timestamp: m.timestamp,
      content: m.content
    }))
}

// ---- import ----

export interface ImportSummary {
  imported: number
  skipped: number
  detached: number
  errors: Array<{ id: string; reason: string }>
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
const MAX_MESSAGES_PER_SESSION = 200_000

export function parseJsonl(
  content: string,
  maxSessions: number
): { records: Array<Record<string, unknown>>; errors: ImportSummary['errors'] } {
  const records: Array<Record<string, unknown>> = []
  const errors: ImportSummary['errors'] = []
  const lines = content.split(/\r?\n/)
  lines.forEach((line, i) => {
    if (!line.trim()) return
    if (records.length >= maxSessions) {
      errors.push({ id: `line ${i + 1}`, reason: `more than ${maxSessions} sessions; the rest was not imported` })
      return
    }
    try {
      const v = JSON.parse(line) as unknown
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object')
      records.push(v as Record<string, unknown>)
    } catch (err) {
      errors.push({ id: `line ${i + 1}`, reason: `invalid JSON: ${(err as Error).message}` })
    }
  })
  // keep only the first error line for a runaway payload
  return { records, errors: errors.slice(0, 1000) }
}

/** Imports in the caller's write transaction; each session in its own savepoint. Returns the ids imported. */
export function importRecords(
  db: Database.Database,
  records: Array<Record<string, unknown>>,
  summary: ImportSummary
): string[] {
  const sessionCols = existingColumns(db, 'sessions')
  const messageCols = existingColumns(db, 'messages')
  const prompts = hasTable(db, 'system_prompts')
  // Parents first, so a child's parent (in the payload) exists when the child goes in.
  const byId = new Map(records.map((r) => [r.id, r]))
  const depths = new Map(records.map((r) => [r, depth(r, byId)]))
  const ordered = [...records].sort((a, b) => depths.get(a)! - depths.get(b)!)
  const done: string[] = []
  for (const rec of ordered) {
    const id = rec.id
    if (typeof id !== 'string' || id.trim() === '' || id.length > 512) {
      summary.errors.push({ id: String(id ?? '?'), reason: 'missing or invalid session id' })
      continue
    }
    if (stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(id)) {
      summary.skipped++
      continue
    }
    try {
      db.transaction(() => {
        const msgs = Array.isArray(rec.messages) ? (rec.messages as Array<Record<string, unknown>>) : []
        if (msgs.length > MAX_MESSAGES_PER_SESSION) throw new Error(`more than ${MAX_MESSAGES_PER_SESSION} messages`)
        const row: Record<string, unknown> = { ...rec, ...RESET }
        delete row.messages
        delete row.segments
        delete row.lineage_session_ids
        if (typeof row.source !== 'string' || !row.source) row.source = 'unknown'
        if (!Number.isFinite(Number(row.started_at))) throw new Error('started_at is missing')
        let detached = false
        if (typeof row.parent_session_id === 'string' && row.parent_session_id) {
          const parent = row.parent_session_id
          if (!stmt(db, 'SELECT 1 FROM sessions WHERE id = ?').get(parent)) {
            row.parent_session_id = null
            detached = true
          }
        } else row.parent_session_id = null
        const prompt = typeof row.system_prompt === 'string' && row.system_prompt ? row.system_prompt : null
        if (prompts) {
          row.system_prompt = null
          row.system_prompt_hash = prompt ? createHash('sha256').update(prompt, 'utf8').digest('hex') : null
          if (prompt)
            stmt(db, 'INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)').run(
              row.system_prompt_hash,
              prompt
            )
        } else row.system_prompt_hash = null
        row.message_count = msgs.length
        const cols = Object.keys(row).filter((c) => sessionCols.has(c) && scalar(row[c]))
        db.prepare(`INSERT INTO sessions (${cols.map(q).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
          ...cols.map((c) => row[c])
        )
        for (const m of msgs) {
          if (!m || typeof m !== 'object' || typeof m.role !== 'string') throw new Error('a message without a role')
          const mrow: Record<string, unknown> = { ...m, session_id: id }
          delete mrow.id // ids are this home's own; order is kept
          if (!Number.isFinite(Number(mrow.timestamp))) mrow.timestamp = Number(row.started_at)
          const mc = Object.keys(mrow).filter((c) => messageCols.has(c) && scalar(mrow[c]) && c !== 'display_identity')
          db.prepare(`INSERT INTO messages (${mc.map(q).join(', ')}) VALUES (${mc.map(() => '?').join(', ')})`).run(
            ...mc.map((c) => mrow[c])
          )
        }
        if (detached) summary.detached++
      })()
      summary.imported++
      done.push(id)
    } catch (err) {
      summary.errors.push({ id, reason: (err as Error).message.split('\n')[0]!.slice(0, 300) })
    }
  }
  return done
}

const q = (c: string) => `"${c.replace(/"/g, '""')}"`
const scalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'

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
