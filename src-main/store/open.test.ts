import Database from 'better-sqlite3'
import { execFileSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { getTableConfig } from 'drizzle-orm/sqlite-core'
import { SessionStore } from './index'
import { beginWriteTx, openStateDb } from './open'
import { SCHEMA_VERSION } from './schema'
import { DECLARED_TABLES } from './schema'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { rawDb } from './test-fixtures/raw-db'
import { makeHome } from './test-fixtures/homes'

afterAll(cleanupTempDirs)

const cols = (db: Database.Database, t: string) =>
  (db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((r) => r.name)
/** The whole schema as written to the file: a second reconcile must leave it exactly as it was. */
const schemaOf = (db: Database.Database) => db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()
const names = (db: Database.Database, type: string) =>
  new Set(
    (db.prepare('SELECT name FROM sqlite_master WHERE type = ?').all(type) as Array<{ name: string }>).map(
      (r) => r.name
    )
  )

describe('openStateDb', () => {
  it('creates every declared table, index, FTS object and trigger on a fresh file at the first write (0600, WAL)', () => {
    const path = join(tempDir(), 'nested', 'dir', 'state.db')
    const store = new SessionStore(path, { lazyCreate: true })
    expect(existsSync(path)).toBe(false) // opening creates nothing
    expect(store.listSessions().items).toEqual([])
    store.prepareWrite()
    // The file itself, by path: WAL is a property of the file, not of the store's connection.
    const file = new Database(path, { readonly: true })
    expect(file.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const h = { sqlite: file }
    const tables = names(h.sqlite, 'table')
    for (const t of DECLARED_TABLES) expect(tables.has(getTableConfig(t).name)).toBe(true)
    expect(tables.has('messages_fts')).toBe(true)
    expect(names(h.sqlite, 'view').has('messages_fts_src')).toBe(true)
    const idx = names(h.sqlite, 'index')
    for (const i of [
      'idx_sessions_parent',
      'idx_sessions_started',
      'idx_messages_session',
      'idx_messages_session_id',
      'idx_sessions_effective_activity',
      'idx_async_delegations_delivery',
      'idx_delegation_child_usage_parent'
    ])
      expect(idx.has(i)).toBe(true)
    const trg = names(h.sqlite, 'trigger')
    for (const t of [
      'messages_fts_insert',
      'messages_fts_delete',
      'messages_fts_update',
      'messages_fts_trigram_insert'
    ])
      expect(trg.has(t)).toBe(true)
    expect(tables.has('messages_fts_trigram')).toBe(true)
    expect(cols(h.sqlite, 'sessions')).toContain('auto_archived')
    expect(h.sqlite.prepare('SELECT version FROM schema_version').get()).toEqual({ version: SCHEMA_VERSION })
    expect(rawDb(store).pragma('foreign_keys', { simple: true })).toBe(1) // per connection: the store's own
    const schema = schemaOf(file)
    file.close()
    store.close()
    const again = new SessionStore(path) // idempotent
    again.prepareWrite()
    expect(schemaOf(rawDb(again))).toEqual(schema)
    expect(rawDb(again).prepare('SELECT count(*) AS n FROM schema_version').get()).toEqual({ n: 1 })
    again.close()
  })

  // seed 004: test_schema_adds_retained_columns_and_usage_table
  it('declares the retained-subagent columns and the child usage ledger', () => {
    const s = new SessionStore(join(tempDir(), 'state.db'))
    s.prepareWrite()
    const h = { sqlite: rawDb(s) }
    const c = cols(h.sqlite, 'async_delegations')
    for (const e of [
      'retained',
      'retained_at',
      'tombstoned_at',
      'child_session_id',
      'children_json',
      'owner_profile',
      'usage_json'
    ])
      expect(c).toContain(e)
    expect(names(h.sqlite, 'table').has('delegation_child_usage')).toBe(true)
    s.close()
  })

  // seed 004: test_schema_upgrade_is_backwards_compatible
  it('upgrades a legacy 13-column async_delegations table without losing rows', () => {
    const path = join(tempDir(), 'state.db')
    const raw = new Database(path)
    raw.exec(`CREATE TABLE async_delegations (
      delegation_id TEXT PRIMARY KEY, origin_session TEXT NOT NULL, origin_ui_session_id TEXT NOT NULL DEFAULT '',
      parent_session_id TEXT, state TEXT NOT NULL, dispatched_at REAL NOT NULL, completed_at REAL, updated_at REAL NOT NULL,
      event_json TEXT, result_json TEXT, delivery_state TEXT NOT NULL DEFAULT 'pending',
      delivery_attempts INTEGER NOT NULL DEFAULT 0, delivered_at REAL)`)
    raw
      .prepare(
        `INSERT INTO async_delegations (delegation_id, origin_session, state, dispatched_at, updated_at)
      VALUES ('deleg_1', 'agent:main', 'completed', 1, 2)`
      )
      .run()
    raw.close()
    const s = new SessionStore(path)
    s.prepareWrite()
    const h = { sqlite: rawDb(s) }
    const c = cols(h.sqlite, 'async_delegations')
    expect(c).toHaveLength(26)
    expect(c).toEqual(
      expect.arrayContaining(['retained', 'children_json', 'origin_session_id', 'owner_pid', 'usage_json'])
    )
    expect(
      h.sqlite.prepare('SELECT delegation_id, state, delivery_state, origin_session_id FROM async_delegations').all()
    ).toEqual([{ delegation_id: 'deleg_1', state: 'completed', delivery_state: 'pending', origin_session_id: '' }])
    s.close()
  })

  it('adds missing columns to a reduced legacy sessions table; rows survive and get defaults', async () => {
    const path = join(tempDir(), 'state.db')
    const raw = new Database(path)
    raw.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, parent_session_id TEXT,
        started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0, title TEXT);
      CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
        content TEXT, timestamp REAL NOT NULL);
      INSERT INTO sessions (id, source, started_at, message_count, title) VALUES ('old', 'cli', 100, 1, 'Legacy chat');
      INSERT INTO messages (session_id, role, content, timestamp) VALUES ('old', 'user', 'remember the blue whale', 100);`)
    raw.close()
    const store = new SessionStore(path)
    // reads before any write tolerate the missing columns (declared defaults)
    expect(store.getSession('old')).toMatchObject({ id: 'old', archived: 0, pinned: 0 })
    expect(store.listSessions().items.map((s) => s.id)).toEqual(['old'])
    expect(cols(rawDb(store), 'sessions')).toContain('archived') // via the TEMP shadow view; the file has no such column
    store.prepareWrite()
    // The columns are in the file now, not only in the read shim (checked by path, past the store's connection).
    const file = new Database(path, { readonly: true })
    expect(cols(file, 'sessions')).toEqual(expect.arrayContaining(['archived', 'auto_archived']))
    expect(cols(file, 'messages')).toContain('active')
    file.close()
    const row = store.getSession('old')!
    expect(row).toMatchObject({
      id: 'old',
      title: 'Legacy chat',
      messageCount: 1,
      archived: 0,
      pinned: 0,
      gitMetadataGeneration: 0
    })
    // the pre-existing message was indexed when FTS was first created
    expect(store.search({ query: 'whale' }).map((x) => x.sessionId)).toEqual(['old'])
    // and appends work with the new columns
    await store.appendMessage('old', { role: 'assistant', content: 'ok' })
    expect(store.getSession('old')!.messageCount).toBe(2)
    store.close()
  })

  it('keeps unknown extra tables and columns from a newer upstream, and never lowers schema_version', async () => {
    const path = join(tempDir(), 'state.db')
    const first = new SessionStore(path)
    await first.createSession('s1', 'cli')
    rawDb(first).exec(`ALTER TABLE sessions ADD COLUMN future_flag TEXT DEFAULT 'x';
      CREATE TABLE future_table (k TEXT PRIMARY KEY, v TEXT); INSERT INTO future_table VALUES ('a', 'b');
      UPDATE schema_version SET version = 42;`)
    first.close()
    const store = new SessionStore(path)
    expect(cols(rawDb(store), 'sessions')).toContain('future_flag')
    expect(rawDb(store).prepare('SELECT v FROM future_table').get()).toEqual({ v: 'b' })
    expect(rawDb(store).prepare('SELECT version FROM schema_version').get()).toEqual({ version: 42 })
    // the record carries the declared columns; the unknown one stays in the file with its value
    expect(store.getSession('s1')).toMatchObject({ id: 's1' })
    expect(rawDb(store).prepare('SELECT future_flag FROM sessions WHERE id = ?').get('s1')).toEqual({
      future_flag: 'x'
    })
    expect(store.listSessions().items.map((s) => s.id)).toEqual(['s1'])
    store.close()
  })

  it('read-only opens never write and report what a stale DB lacks', () => {
    const path = join(tempDir(), 'state.db')
    const raw = new Database(path)
    raw.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL)')
    raw.close()
    const h = openStateDb(path, { readonly: true })
    expect(h.readonly).toBe(true)
    expect(h.missing).toEqual(expect.arrayContaining(['sessions.message_count', 'messages.*']))
    // the file keeps its three columns; the connection reads the rest through TEMP views
    const file = (h.sqlite.prepare('PRAGMA main.table_info(sessions)').all() as Array<{ name: string }>).map(
      (r) => r.name
    )
    expect(file).toEqual(['id', 'source', 'started_at'])
    expect(cols(h.sqlite, 'sessions')).toContain('message_count')
    h.sqlite.close()
    expect(() => openStateDb(join(tempDir(), 'absent.db'), { readonly: true })).toThrow()
  })

  it('a first write that fails inside its transaction (a read-only file) leaves the read views and their bookkeeping as they were', () => {
    // A v21 home on a read-only mount: BEGIN IMMEDIATE is granted, then reconcile's first ALTER TABLE is refused. The
    // rollback brings the views back; the bookkeeping said "none", so the next write's reconcile met the TEMP view
    // and failed with "Cannot add a column to a view" (and reads were planned as if no view shadowed the tables).
    const path = makeHome(tempDir(), 21)
    const h = openStateDb(path, { readonly: true })
    const firstWrite = () => h.sqlite.transaction(() => beginWriteTx(h)).immediate()
    expect(firstWrite).toThrow(/readonly database/)
    expect(firstWrite).toThrow(/readonly database/)
    expect(cols(h.sqlite, 'sessions')).toContain('archived') // v21 lacks it: still read through its view
    h.sqlite.close()
  })

  it("a table another program creates under an open older home is read once the store's next write re-makes the views", async () => {
    // v21 has no system_prompts: after a write the connection reads an empty stand-in view of it.
    const path = makeHome(tempDir(), 21)
    const store = new SessionStore(path, { profile: 'default' })
    try {
      await store.createSession('a', 'cli')
      const prompts = () => rawDb(store).prepare<[], string>('SELECT prompt FROM system_prompts').pluck().all()
      expect(prompts()).toEqual([])
      // Upstream's v25 migration in another process creates the table while the store is open.
      const other = new Database(path)
      try {
        other.exec(`CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
          INSERT INTO system_prompts VALUES ('h1', 'You are upstream.')`)
      } finally {
        other.close()
      }
      await store.createSession('b', 'cli')
      expect(prompts()).toEqual(['You are upstream.'])
    } finally {
      store.close()
    }
  })
  it('opening a file this process already has open leaves the open connection its locks (a WAL home)', () => {
    // POSIX drops every lock a process holds on a file when any descriptor of it on that file closes. A second
    // open that read the file's header through a descriptor of its own dropped the first connection's shared lock:
    // another program closing its last connection then believed it was the last one, checkpointed and deleted the
    // WAL under this process, and the first connection's next commit went to a deleted file (lost).
    const path = join(tempDir(), 'state.db')
    const raw = new Database(path)
    raw.pragma('journal_mode = WAL')
    raw.exec('CREATE TABLE t (x)')
    raw.close()
    const first = openStateDb(path)
    const second = openStateDb(path)
    try {
      first.sqlite.prepare('INSERT INTO t VALUES (1)').run()
      // Another program — the system Python's SQLite, as upstream Hermes runs it — reads and closes its connection.
      const other = (code: string) =>
        execFileSync(
          '/usr/bin/python3',
          ['-c', `import sqlite3, sys\nd = sqlite3.connect(sys.argv[1])\n${code}\nd.close()`, path],
          {
            encoding: 'utf8'
          }
        )
      other('d.execute("SELECT count(*) FROM t").fetchall()')
      expect(existsSync(`${path}-wal`)).toBe(true)
      first.sqlite.prepare('INSERT INTO t VALUES (2)').run()
      expect(other('print(d.execute("SELECT count(*) FROM t").fetchone()[0], end="")')).toBe('2')
      // and the busy wait a WAL home gets, now set once the mode is known
      expect(second.sqlite.pragma('busy_timeout', { simple: true })).toBe(1000)
    } finally {
      second.sqlite.close()
      first.sqlite.close()
    }
  })
})
