/**
 * Session row writes (hermes-spec §1.5). All run inside the caller's BEGIN IMMEDIATE transaction, so the
 * read-then-write upsert below is atomic across processes.
 */
import type Database from 'better-sqlite3'
import { stmt, type ColumnsOf } from './stmt-cache'
import { dropUsageRows } from './usage-rows'
import { createHash } from 'node:crypto'
import type { CreateSessionOptions } from './types'
import type { sessions } from './schema'
import { invalid } from './errors'
import { writeTitle } from './titles'
import { nowSeconds } from './util'
import { parseJsonOr } from '@shared/contract/errors'
import { parsePyJson, pyJson } from '@shared/contract/py-text'

const RESET_END_REASONS = new Set([
  'session_reset',
  'session_switch',
  'idle',
  'daily',
  'suspended',
  'resume_pending_expired'
])
// Columns whose earlier non-NULL value wins on conflict (COALESCE existing-first).
const KEEP_FIRST = [
  'model',
  'system_prompt',
  'system_prompt_hash',
  'user_id',
  'session_key',
  'chat_id',
  'chat_type',
  'thread_id',
  'parent_session_id',
  'cwd',
  'profile_name',
  'git_repo_root',
  'origin_json',
  'display_name'
] as const
const ROUTING = ['user_id', 'session_key', 'chat_id', 'chat_type', 'thread_id', 'display_name', 'origin_json'] as const

/** The columns `upsertSession` writes, typed by the `sessions` table (snake_case: the statements' named parameters). */
type Written = Pick<typeof sessions.$inferSelect, (typeof KEEP_FIRST)[number] | 'model_config' | 'git_branch'>
/** A row read with `SELECT *` inside a write: an older home may lack declared columns (no read shim in a write). */
type Stored = Partial<typeof sessions.$inferSelect>

const keyNamespace = (key: unknown) => (typeof key === 'string' ? (/^agent:([^:]+):/.exec(key)?.[1] ?? null) : null)

function optStr(v: unknown, field: string): string | null {
  if (v == null) return null
  if (typeof v !== 'string') throw invalid(`${field} must be a string`, field)
  return v
}

function modelConfigJson(mc: CreateSessionOptions['modelConfig']): string | null {
  if (mc == null) return null
  if (typeof mc !== 'object' || Array.isArray(mc)) throw invalid('modelConfig must be an object', 'modelConfig')
  // json.dumps' bytes, as upstream's create_session writes the column
  return Object.keys(mc).length ? pyJson(mc) : null
}

/** Where this home's upstream reads the prompt: `system_prompts` + hash from v25, the inline column before. */
const promptsTable = (db: Database.Database) =>
  stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'system_prompts'").get() !== undefined

function storePrompt(db: Database.Database, prompt: string | null): string | null {
  if (!prompt || !promptsTable(db)) return null
  const hash = createHash('sha256').update(prompt, 'utf8').digest('hex')
  stmt(db, 'INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)').run(hash, prompt)
  return hash
}

/**
 * The session's current system prompt, as upstream's `update_system_prompt` keeps it: one per session,
 * overwritten when it changes — `system_prompts` + hash where the home has that table, the inline column
 * before. Returns false when the row is missing or already holds this prompt (no write needed).
 */
export function writeSystemPrompt(db: Database.Database, id: string, prompt: string): boolean {
  const row = stmt<Stored>(db, 'SELECT * FROM sessions WHERE id = ?').get(id)
  if (!row) return false
  if (promptsTable(db) && 'system_prompt_hash' in row) {
    const hash = storePrompt(db, prompt)
    if (row.system_prompt_hash === hash) return false
    return stmt(db, 'UPDATE sessions SET system_prompt_hash = ? WHERE id = ?').run(hash, id).changes > 0
  }
  if (row.system_prompt === prompt) return false
  return stmt(db, 'UPDATE sessions SET system_prompt = ? WHERE id = ?').run(prompt, id).changes > 0
}

export function upsertSession(
  db: Database.Database,
  owner: string | null,
  id: string,
  source: string,
  opts: CreateSessionOptions = {}
): void {
  if (typeof source !== 'string' || source.trim() === '') throw invalid('source is required', 'source')
  const prompt = optStr(opts.systemPrompt, 'systemPrompt')
  const incoming: Written = {
    model: optStr(opts.model, 'model'),
    system_prompt: prompt && !promptsTable(db) ? prompt : null,
    model_config: modelConfigJson(opts.modelConfig),
    system_prompt_hash: storePrompt(db, prompt),
    user_id: optStr(opts.userId, 'userId'),
    session_key: optStr(opts.sessionKey, 'sessionKey'),
    chat_id: optStr(opts.chatId, 'chatId'),
    chat_type: optStr(opts.chatType, 'chatType'),
    thread_id: optStr(opts.threadId, 'threadId'),
    parent_session_id: optStr(opts.parentSessionId, 'parentSessionId'),
    cwd: optStr(opts.cwd, 'cwd'),
    profile_name: optStr(opts.profileName, 'profileName'),
    display_name: optStr(opts.displayName, 'displayName'),
    git_repo_root: null,
    origin_json: null,
    git_branch: null
  }
  const startedAt = opts.startedAt ?? nowSeconds()
  if (!Number.isFinite(startedAt)) throw invalid('startedAt must be a finite number', 'startedAt')

  const existing = stmt<Stored>(db, 'SELECT * FROM sessions WHERE id = ?').get(id)
  const merged: Written = { ...incoming }
  if (existing) {
    for (const c of KEEP_FIRST) merged[c] = existing[c] ?? incoming[c]
    merged.git_branch = existing.git_branch ?? null
    const mc = typeof existing.model_config === 'string' ? safeKeys(existing.model_config) : null
    // A `_reset_from`-only row is a placeholder; the first real config fills it (marker kept).
    merged.model_config =
      existing.model_config == null
        ? incoming.model_config
        : mc && mc.length === 1 && mc[0] === '_reset_from' && incoming.model_config
          ? pyJson({
              ...(parsePyJson(incoming.model_config as string) as object),
              ...(parsePyJson(existing.model_config as string) as object)
            })
          : existing.model_config
  }
  inheritFromParent(db, merged)
  if (merged.profile_name == null) merged.profile_name = owner

  if (!existing) {
    dropUsageRows(db, [id]) // left behind by another program's delete of this id
    stmt(
      db,
      `INSERT INTO sessions (id, source, created_source, model, model_config, system_prompt, system_prompt_hash, user_id, session_key,
        chat_id, chat_type, thread_id, parent_session_id, cwd, profile_name, display_name, git_repo_root, git_branch, origin_json, started_at)
      VALUES (@id, @source, @source, @model, @model_config, @system_prompt, @system_prompt_hash, @user_id, @session_key, @chat_id, @chat_type,
        @thread_id, @parent_session_id, @cwd, @profile_name, @display_name, @git_repo_root, @git_branch, @origin_json, @started_at)`
    ).run({ ...merged, id, source, started_at: startedAt })
  } else {
    stmt(
      db,
      `UPDATE sessions SET source = CASE WHEN source = 'unknown' THEN @source ELSE source END,
        model = @model, model_config = @model_config, system_prompt = @system_prompt, system_prompt_hash = @system_prompt_hash, user_id = @user_id,
        session_key = @session_key, chat_id = @chat_id, chat_type = @chat_type, thread_id = @thread_id,
        parent_session_id = @parent_session_id, cwd = @cwd, profile_name = @profile_name, display_name = @display_name,
        git_repo_root = @git_repo_root, git_branch = @git_branch, origin_json = @origin_json WHERE id = @id`
    ).run({ ...merged, id, source })
  }
  if (opts.title != null && (!existing || existing.title == null)) writeTitle(db, id, opts.title, 'user')
}

function safeKeys(json: string): string[] | null {
  const v = parseJsonOr(json, null)
  return v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : null
}

/** Child inheritance (§1.5.4): workspace always; profile if key namespaces agree; routing only for continuations. */
function inheritFromParent(db: Database.Database, row: Written): void {
  if (typeof row.parent_session_id !== 'string') return
  const parent = stmt<Stored>(db, 'SELECT * FROM sessions WHERE id = ?').get(row.parent_session_id)
  if (!parent) return
  for (const c of ['cwd', 'git_repo_root', 'git_branch'] as const) row[c] ??= parent[c] ?? null
  const a = keyNamespace(row.session_key),
    b = keyNamespace(parent.session_key)
  if (row.profile_name == null && (a === null || b === null || a === b)) row.profile_name = parent.profile_name ?? null
  if (parent.end_reason === 'compression') for (const c of ROUTING) row[c] ??= parent[c] ?? null
}

/** First end reason wins: an existing end stamp is never overwritten. */
export function endSessionRow(db: Database.Database, id: string, reason: string, at = nowSeconds()): boolean {
  if (typeof reason !== 'string' || reason.trim() === '') throw invalid('end reason is required', 'reason')
  const res = stmt(db, 'UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL').run(
    at,
    reason,
    id
  )
  if (res.changes > 0 && RESET_END_REASONS.has(reason)) bumpGeneration(db, id)
  return res.changes > 0
}

// conversation_generations is upstream's table (not created by us); bump it only where it exists.
function bumpGeneration(db: Database.Database, id: string): void {
  if (!stmt(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'conversation_generations'").get()) return
  const row = stmt<ColumnsOf<typeof sessions, 'source' | 'session_key'>>(
    db,
    'SELECT source, session_key FROM sessions WHERE id = ?'
  ).get(id)
  if (!row?.session_key) return
  stmt(
    db,
    `INSERT INTO conversation_generations(source, session_key, generation) VALUES (?, ?, 1)
    ON CONFLICT(source, session_key) DO UPDATE SET generation = generation + 1`
  ).run(row.source, row.session_key)
}

export function reopenSessionRow(db: Database.Database, id: string): boolean {
  return (
    stmt(db, 'UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ? AND ended_at IS NOT NULL').run(id)
      .changes > 0
  )
}

/**
 * Sets `pinned` on one session, or `archived` on its whole compression lineage, as upstream's
 * `set_session_archived` does: up through 'compression'-ended parents, down through every child of a
 * 'compression'-ended segment — an unarchived root would bring an archived tip back in upstream's projected list.
 * Returns the ids whose flag changed.
 */
export function setFlag(db: Database.Database, id: string, column: 'archived' | 'pinned', on: boolean): string[] {
  const ids =
    column === 'pinned'
      ? [id]
      : stmt<(typeof sessions.$inferSelect)['id']>(
          db,
          `WITH RECURSIVE
            up(id) AS (SELECT ? UNION SELECT p.id FROM up JOIN sessions c ON c.id = up.id
              JOIN sessions p ON p.id = c.parent_session_id WHERE p.end_reason = 'compression'),
            down(id) AS (SELECT ? UNION SELECT c.id FROM down JOIN sessions p ON p.id = down.id
              JOIN sessions c ON c.parent_session_id = p.id WHERE p.end_reason = 'compression')
          SELECT id FROM up UNION SELECT id FROM down`
        )
          .pluck()
          .all(id, id)
  const set = stmt(db, `UPDATE sessions SET ${column} = ? WHERE id = ? AND ${column} IS NOT ?`)
  return ids.filter((s) => set.run(on ? 1 : 0, s, on ? 1 : 0).changes > 0)
}
