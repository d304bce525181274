/**
 * FTS objects (hermes-spec §1.3, FTS_STORAGE_VERSION 3): an external-content FTS5 index over a stable view,
 * kept in sync by triggers that use the SAME projection as the view (invariant 8) — otherwise the
 * 'delete' command would be fed different text than was indexed and corrupt the index.
 */
export const FTS_TOOL_CONTENT_PREFIX_CHARS = 8192
export const FTS_STORAGE_VERSION = '3'

const projected = (row: 'new' | 'old') =>
  `CASE WHEN ${row}.role = 'tool' THEN substr(${row}.content, 1, ${FTS_TOOL_CONTENT_PREFIX_CHARS}) ELSE ${row}.content END`

// Deferred-rebuild gate (hermes-spec §1.3): a row is indexed iff id > high_water or id <= progress, a marker absent
// or without a value read as -1 (so neither set ⇒ always), each value read as an integer — as upstream's own triggers
// read them, so either program's writes leave the index as the other's rebuild expects.
const marker = (key: string) => `COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = '${key}'), -1)`
const gate = (row: 'new' | 'old') =>
  `(${row}.id > ${marker('fts_rebuild_high_water')} OR ${row}.id <= ${marker('fts_rebuild_progress')})`

export const FTS_VIEW_SQL = `CREATE VIEW IF NOT EXISTS messages_fts_src AS
  SELECT id, CASE WHEN role = 'tool' THEN substr(content, 1, ${FTS_TOOL_CONTENT_PREFIX_CHARS}) ELSE content END AS content,
    tool_name, tool_calls
  FROM messages`

export const FTS_TABLE_SQL = `CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
  content, tool_name, tool_calls, content='messages_fts_src', content_rowid='id')`

export const FTS_TRIGGER_SQL: readonly string[] = [
  `CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages WHEN ${gate('new')} BEGIN
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, ${projected('new')}, new.tool_name, new.tool_calls);
  END`,
  `CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages WHEN ${gate('old')} BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, ${projected('old')}, old.tool_name, old.tool_calls);
  END`,
  `CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls, role ON messages
  WHEN (old.content IS NOT new.content OR old.tool_name IS NOT new.tool_name OR old.tool_calls IS NOT new.tool_calls
        OR old.role IS NOT new.role) AND ${gate('old')} BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, ${projected('old')}, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, ${projected('new')}, new.tool_name, new.tool_calls);
  END`
]

/**
 * Trigram index (hermes-spec §1.3): CJK and substring search. External content over a view that leaves out
 * tool rows and cron/subagent/delegate sessions; created only in a current (v30) home that lacks it.
 */
const trigramEligible = (
  row: 'new' | 'old'
) => `${row}.role <> 'tool' AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = ${row}.session_id
    AND s.source NOT IN ('cron', 'subagent')
    AND (CASE WHEN json_valid(s.model_config) THEN json_extract(s.model_config, '$._delegate_from') END) IS NULL)`

export const TRIGRAM_VIEW_SQL = `CREATE VIEW IF NOT EXISTS messages_fts_trigram_src AS
  SELECT m.id, m.content, m.tool_name FROM messages m JOIN sessions s ON s.id = m.session_id
  WHERE m.role <> 'tool' AND s.source NOT IN ('cron', 'subagent')
    AND (CASE WHEN json_valid(s.model_config) THEN json_extract(s.model_config, '$._delegate_from') END) IS NULL`

export const TRIGRAM_TABLE_SQL = `CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
  content, tool_name, content='messages_fts_trigram_src', content_rowid='id', tokenize='trigram')`

export const TRIGRAM_TRIGGER_SQL: readonly string[] = [
  `CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages WHEN ${trigramEligible('new')} AND ${gate('new')} BEGIN
    INSERT INTO messages_fts_trigram(rowid, content, tool_name) VALUES (new.id, new.content, new.tool_name);
  END`,
  `CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_delete AFTER DELETE ON messages WHEN ${trigramEligible('old')} AND ${gate('old')} BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name) VALUES ('delete', old.id, old.content, old.tool_name);
  END`,
  `CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_update AFTER UPDATE OF content, tool_name, role ON messages
  WHEN (old.content IS NOT new.content OR old.tool_name IS NOT new.tool_name OR old.role IS NOT new.role) AND ${gate('old')} BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name)
      SELECT 'delete', old.id, old.content, old.tool_name WHERE ${trigramEligible('old')};
    INSERT INTO messages_fts_trigram(rowid, content, tool_name)
      SELECT new.id, new.content, new.tool_name WHERE ${trigramEligible('new')};
  END`
]
