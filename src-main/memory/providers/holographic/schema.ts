/**
 * `memory_store.db` exactly as upstream's holographic plugin lays it out (hermes-memory-providers.md §2), so
 * upstream reading the same file sees the same facts. Created with IF NOT EXISTS only: an existing
 * upstream store is opened as it is, never altered.
 */
import Database from 'better-sqlite3'
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'

export const HOLOGRAPHIC_DDL = `
CREATE TABLE IF NOT EXISTS facts (
  fact_id INTEGER PRIMARY KEY AUTOINCREMENT,
  content TEXT NOT NULL UNIQUE,
  category TEXT DEFAULT 'general',
  tags TEXT DEFAULT '',
  trust_score REAL DEFAULT 0.5,
  retrieval_count INTEGER DEFAULT 0,
  helpful_count INTEGER DEFAULT 0,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  hrr_vector BLOB
);
CREATE TABLE IF NOT EXISTS entities (
  entity_id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  entity_type TEXT DEFAULT 'unknown',
  aliases TEXT DEFAULT '',
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS fact_entities (
  fact_id INTEGER REFERENCES facts(fact_id),
  entity_id INTEGER REFERENCES entities(entity_id),
  PRIMARY KEY (fact_id, entity_id)
);
CREATE TABLE IF NOT EXISTS memory_banks (
  bank_id INTEGER PRIMARY KEY AUTOINCREMENT,
  bank_name TEXT NOT NULL UNIQUE,
  vector BLOB NOT NULL,
  dim INTEGER NOT NULL,
  fact_count INTEGER DEFAULT 0,
  updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS idx_facts_trust ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name ON entities(name);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(content, tags, content=facts, content_rowid=fact_id);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
  INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
`

/** Open (creating when missing) the fact store. The Electron app passes its own addon build. */
export function openFactDb(path: string, nativeBinding?: string): Database.Database {
  mkdirSync(dirname(path), { recursive: true })
  const fresh = !existsSync(path)
  if (fresh) closeSync(openSync(path, 'a', 0o600))
  const db = new Database(path, nativeBinding ? { nativeBinding } : {})
  try {
    // Short: this runs on the turn's event loop; upstream writing at the same moment is rare and brief.
    db.pragma('busy_timeout = 1000')
    try {
      db.pragma('journal_mode = WAL')
    } catch {
      // Keep whatever journal mode the file system allows.
    }
    db.exec(HOLOGRAPHIC_DDL)
    // A store from before the plugin kept vectors has no hrr_vector column (memory_banks, also newer, comes from
    // the DDL above): upstream's store adds the column when it opens such a file, and so does Caduceus, whose
    // backfill then gives its facts their vectors.
    const columns = db.prepare<unknown[], string>("SELECT name FROM pragma_table_info('facts')").pluck().all()
    if (!columns.includes('hrr_vector')) db.exec('ALTER TABLE facts ADD COLUMN hrr_vector BLOB')
    if (fresh) {
      try {
        chmodSync(path, 0o600)
      } catch {
        /* not ours to fix */
      }
    }
    return db
  } catch (err) {
    db.close()
    throw err
  }
}
