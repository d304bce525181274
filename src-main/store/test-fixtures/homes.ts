/**
 * Upstream-shaped homes for compatibility tests, built from raw SQL (not from Caduceus's reconcile):
 * - v21: schema_version 21, five-column session_model_usage key (no `task`), inline FTS tables
 *   messages_fts(content) and messages_fts_trigram(content, tokenize='trigram') filled by triggers with
 *   content || ' ' || tool_name || ' ' || tool_calls, the inline `system_prompt` column and no system_prompts.
 * - v30: the schema hermes-spec §1.3 describes (external-content FTS + trigram over views).
 * `upstream(db)` issues the SQL such an upstream issues itself, to prove Caduceus left the home usable.
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { mkdirSync } from 'node:fs'
import { createTableSql } from '../schema/ddl'
import {
  DECLARED_TABLES,
  FTS_TABLE_SQL,
  FTS_TRIGGER_SQL,
  FTS_VIEW_SQL,
  INDEX_SQL,
  TRIGRAM_TABLE_SQL,
  TRIGRAM_TRIGGER_SQL,
  TRIGRAM_VIEW_SQL
} from '../schema'

const V21_SQL = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version (version) VALUES (21);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT,
  parent_session_id TEXT REFERENCES sessions(id), started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
  message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0,
  reasoning_tokens INTEGER DEFAULT 0, billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT,
  estimated_cost_usd REAL, actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT,
  api_call_count INTEGER DEFAULT 0
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,
  finish_reason TEXT, reasoning TEXT, active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE session_model_usage (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, model TEXT NOT NULL,
  billing_provider TEXT NOT NULL DEFAULT '', billing_base_url TEXT NOT NULL DEFAULT '', billing_mode TEXT NOT NULL DEFAULT '',
  api_call_count INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0, reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost_usd REAL NOT NULL DEFAULT 0, actual_cost_usd REAL NOT NULL DEFAULT 0, cost_status TEXT, cost_source TEXT,
  first_seen REAL, last_seen REAL,
  PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode)
);
CREATE TABLE session_daily_usage (
  session_id TEXT NOT NULL, day TEXT NOT NULL, input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0, reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost_usd REAL NOT NULL DEFAULT 0, actual_cost_usd REAL NOT NULL DEFAULT 0, api_call_count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, day)
);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
  UPDATE messages_fts SET content = COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '') WHERE rowid = new.id;
  UPDATE messages_fts_trigram SET content = COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '') WHERE rowid = new.id;
END;
`

export type HomeVersion = 21 | 30

/** Creates `<dir>/state.db` in the given upstream shape (rollback journal, as a fresh upstream file starts). */
export function makeHome(dir: string, version: HomeVersion): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'state.db')
  const db = new Database(path)
  if (version === 21) db.exec(V21_SQL)
  else {
    db.exec(
      [
        ...DECLARED_TABLES.map((t) => createTableSql(t)),
        ...INDEX_SQL,
        FTS_VIEW_SQL,
        FTS_TABLE_SQL,
        ...FTS_TRIGGER_SQL,
        TRIGRAM_VIEW_SQL,
        TRIGRAM_TABLE_SQL,
        ...TRIGRAM_TRIGGER_SQL,
        'INSERT INTO schema_version(version) VALUES (30)',
        "INSERT INTO state_meta(key, value) VALUES ('fts_storage_version', '3')"
      ].join(';\n')
    )
  }
  db.close()
  return path
}

/** The writes an upstream Hermes of that version issues against its own home. */
export function upstream(db: Database.Database, version: HomeVersion) {
  const key =
    version === 21
      ? 'session_id, model, billing_provider, billing_base_url, billing_mode'
      : 'session_id, model, billing_provider, billing_base_url, billing_mode, task'
  return {
    createSession(id: string, prompt = 'You are upstream.'): void {
      if (version === 21)
        db.prepare('INSERT INTO sessions (id, source, system_prompt, started_at) VALUES (?, ?, ?, ?)').run(
          id,
          'cli',
          prompt,
          Date.now() / 1000
        )
      else
        db.prepare('INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)').run(id, 'cli', Date.now() / 1000)
    },
    append(id: string, role: string, content: string): number {
      return db
        .transaction(() => {
          const r = db
            .prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
            .run(id, role, content, Date.now() / 1000)
          db.prepare('UPDATE sessions SET message_count = message_count + 1 WHERE id = ?').run(id)
          return Number(r.lastInsertRowid)
        })
        .immediate()
    },
    usage(id: string, model: string, tokensIn: number): void {
      db.prepare(
        `INSERT INTO session_model_usage (session_id, model, billing_provider, billing_base_url, billing_mode, input_tokens, api_call_count)
        VALUES (?, ?, 'p', 'u', 'm', ?, 1) ON CONFLICT(${key}) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
        api_call_count = api_call_count + 1`
      ).run(id, model, tokensIn)
      db.prepare(
        `INSERT INTO session_daily_usage (session_id, day, input_tokens, api_call_count) VALUES (?, date('now','localtime'), ?, 1)
        ON CONFLICT(session_id, day) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens`
      ).run(id, tokensIn)
    },
    deleteSession(id: string): void {
      db.transaction(() => {
        db.prepare('DELETE FROM messages WHERE session_id = ?').run(id)
        db.prepare('DELETE FROM session_model_usage WHERE session_id = ?').run(id)
        db.prepare('DELETE FROM sessions WHERE id = ?').run(id)
      }).immediate()
    },
    integrityCheck(): void {
      db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)").run()
      db.prepare("INSERT INTO messages_fts_trigram(messages_fts_trigram, rank) VALUES('integrity-check', 1)").run()
    }
  }
}

/**
 * A v21 home an older upstream wrote: session `old` started and spoke two hours ago, `newer` just now, so a list by
 * last activity shows `newer` first until `old` is continued. Returns the state.db path.
 */
export function olderAndNewerV21Home(dir: string): string {
  const path = makeHome(dir, 21)
  const raw = new Database(path)
  const up = upstream(raw, 21)
  up.createSession('old')
  up.append('old', 'user', 'first words')
  raw.prepare("UPDATE sessions SET started_at = started_at - 7200 WHERE id = 'old'").run()
  raw.prepare("UPDATE messages SET timestamp = timestamp - 7200 WHERE session_id = 'old'").run()
  up.createSession('newer')
  up.append('newer', 'user', 'newer words')
  raw.close()
  return path
}
