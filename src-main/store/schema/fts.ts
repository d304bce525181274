/**
 * FTS objects (hermes-spec §1.3, FTS_STORAGE_VERSION 3): an external-content FTS5 index over a stable view,
 * kept in sync by triggers that use the SAME projection as the view (invariant 8) — otherwise the
 * 'delete' command would be fed different text than was indexed and corrupt the index.
 */
export const FTS_TOOL_CONTENT_PREFIX_CHARS = 8192
export const FTS_STORAGE_VERSION = '3'

const projected = (row: 'new' | 'old') =>
  `CASE WHEN ${row}.role = 'tool' THEN substr(${row}.content, 1, ${FTS_TOOL_CONTENT_PREFIX_CHARS}) ELSE ${row}.content END`

// Deferred-rebuild gate: a row is indexed iff id > high_water or id <= progress; both absent ⇒ always.
const gate = (row: 'new' | 'old') => `(
    NOT EXISTS (SELECT 1 FROM state_meta WHERE key = 'fts_rebuild_high_water')
    OR ${row}.id > CAST((SELECT value FROM state_meta WHERE key = 'fts_rebuild_high_water') AS INTEGER)
    OR ${row}.id <= COALESCE(CAST((SELECT value FROM state_meta WHERE key = 'fts_rebuild_progress') AS INTEGER), -1)
  )`

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
