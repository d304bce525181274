/**
 * A profile Caduceus writes first, in a home a v21 upstream made: its new state.db has that upstream's schema, so
 * upstream's own usage write (keyed by v21's five route columns) lands there instead of rolling back the turn's
 * token counters. Judged by the schema upstream made for the home's other profile and, where upstream's code is at
 * hand, by upstream's own SessionDB writing usage into the new file.
 */
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore, SessionWatcher } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { usageReport } from './test-fixtures/usage'

const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/v21-two-profiles')
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const PYTHON = '/usr/bin/python3'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'hermes_state.py'))

const open: SessionStore[] = []
afterEach(() => {
  for (const s of open.splice(0)) s.close()
  cleanupTempDirs()
})

function read<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}
const usageKey = (db: Database.Database) =>
  (
    db.prepare('SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').all('session_model_usage') as {
      name: string
    }[]
  ).map((c) => c.name)
/** Upstream's own objects (not Caduceus's `cad_` ones), each with its SQL, by name. */
const upstreamSchema = (db: Database.Database) =>
  Object.fromEntries(
    (
      db
        .prepare(
          "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'cad\\_%' ESCAPE '\\' ORDER BY name"
        )
        .all() as { name: string; sql: string }[]
    ).map((r) => [r.name, r.sql])
  )
const version = (db: Database.Database) =>
  (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v

async function firstWriteIn(home: string, profile: string): Promise<string> {
  const file = join(home, 'profiles', profile, 'state.db')
  mkdirSync(join(home, 'profiles', profile), { recursive: true })
  const store = new SessionStore(file, { profile, lazyCreate: true })
  open.push(store)
  await store.createSession('c1', 'cli', { model: 'gpt-x' })
  await store.recordUsage('c1', usageReport(0.01))
  return file
}

/**
 * The addon better-sqlite3 loads by default, behind a proxy that records the file of every connection opened through
 * it: better-sqlite3 takes an addon object as `nativeBinding` as well as a path, so a store given this one shows which
 * of its connections load the build it was given (under Electron, one that does not cannot load at all).
 */
function recordingAddon(): { binding: string; files: string[] } {
  const files: string[] = []
  const addon = createRequire(import.meta.url)('better-sqlite3/build/Release/better_sqlite3.node') as object
  const proxy = new Proxy(addon, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown
      if (key !== 'Database' || typeof value !== 'function') return value
      return new Proxy(value, {
        construct(ctor, args: unknown[]) {
          files.push(String(args[0]))
          return Reflect.construct(ctor, args) as object
        }
      })
    }
  })
  return { binding: proxy as unknown as string, files }
}

describe("a new profile's state.db in a home upstream made", () => {
  it('reads the template through the addon build its store was given, as every other connection of the store', async () => {
    const home = tempDir()
    cpSync(GOLDEN, home, { recursive: true })
    const { binding, files } = recordingAddon()
    const file = join(home, 'profiles', 'fresh', 'state.db')
    mkdirSync(dirname(file), { recursive: true })
    const store = new SessionStore(file, { profile: 'fresh', lazyCreate: true, nativeBinding: binding })
    open.push(store)
    await store.createSession('c1', 'cli', { model: 'gpt-x' })
    expect(files).toContain(join(home, 'state.db'))
    const ours = read(file, (db) => version(db))
    expect(ours).toBe(read(join(home, 'state.db'), (db) => version(db)))
    // the watcher's own connection on the file loads it too
    const before = files.filter((f) => f === file).length
    const watcher = new SessionWatcher(store, () => {}).start()
    watcher.stop()
    expect(files.filter((f) => f === file)).toHaveLength(before + 1)
  })

  it("has the schema upstream made for the home's other profiles (its usage key, its schema_version)", async () => {
    const home = tempDir()
    cpSync(GOLDEN, home, { recursive: true })
    const file = await firstWriteIn(home, 'fresh')
    const theirs = read(join(home, 'state.db'), (db) => ({
      key: usageKey(db),
      schema: upstreamSchema(db),
      v: version(db)
    }))
    const ours = read(file, (db) => ({ key: usageKey(db), schema: upstreamSchema(db), v: version(db) }))
    expect(theirs.key).toEqual(['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode'])
    expect(ours.key).toEqual(theirs.key)
    expect(ours.v).toBe(theirs.v)
    // Every table, index, trigger and FTS table upstream has, as upstream wrote it (reconcile may add columns).
    for (const [name, sql] of Object.entries(theirs.schema))
      if (!/^CREATE TABLE/i.test(sql)) expect([name, ours.schema[name]]).toEqual([name, sql])
      else expect([name, name in ours.schema]).toEqual([name, true])
    // Caduceus's own write landed in it.
    expect(read(file, (db) => db.prepare('SELECT input_tokens FROM session_model_usage').pluck().get())).toBe(100)
  })

  it("copies none of Caduceus's own objects from a home Caduceus has written, nor what hangs on them", async () => {
    const home = tempDir()
    cpSync(GOLDEN, home, { recursive: true })
    const root = new Database(join(home, 'state.db'))
    root.exec(`CREATE TABLE cad_memory_events (id INTEGER PRIMARY KEY, provider TEXT);
      CREATE INDEX idx_cad_memory_events_provider ON cad_memory_events(provider);
      CREATE TRIGGER keep_cad AFTER DELETE ON cad_memory_events BEGIN SELECT 1; END;
      INSERT INTO state_meta (key, value) VALUES ('fts_storage_version', '3')`)
    root.close()
    const file = await firstWriteIn(home, 'fresh')
    const theirs = read(join(home, 'state.db'), usageKey)
    expect(read(file, usageKey)).toEqual(theirs)
    expect(read(file, (db) => db.prepare("SELECT name FROM sqlite_master WHERE name = 'keep_cad'").get())).toBe(
      undefined
    )
    // The FTS tables' storage format stamp goes with the FTS schema it describes.
    expect(
      read(file, (db) => db.prepare("SELECT value FROM state_meta WHERE key = 'fts_storage_version'").pluck().get())
    ).toBe('3')
  })

  it('shapes an empty file left in place (no hard links, or a 0-byte state.db) the same way, at its first write', async () => {
    const home = tempDir()
    cpSync(GOLDEN, home, { recursive: true })
    mkdirSync(join(home, 'profiles', 'blank'), { recursive: true })
    writeFileSync(join(home, 'profiles', 'blank', 'state.db'), '')
    const file = await firstWriteIn(home, 'blank')
    expect(read(file, usageKey)).toEqual(read(join(home, 'state.db'), usageKey))
    expect(read(file, version)).toBe(21)
  })

  it('takes the current schema in a home with no other state.db', async () => {
    const file = await firstWriteIn(tempDir(), 'solo')
    expect(read(file, usageKey)).toContain('task')
  })

  it.skipIf(!hasUpstream)(
    "takes upstream's own usage write (v21's key), which rolls back on the current schema",
    async () => {
      const home = tempDir()
      cpSync(GOLDEN, home, { recursive: true })
      const file = await firstWriteIn(home, 'fresh')
      const solo = await firstWriteIn(tempDir(), 'solo')
      open.splice(0).forEach((s) => s.close())
      const tokensAfterUpstream = (db: string) =>
        JSON.parse(
          execFileSync(
            PYTHON,
            [
              '-c',
              `import sys, json, logging; sys.path.insert(0, sys.argv[1])
from pathlib import Path
from hermes_state import SessionDB
db = SessionDB(Path(sys.argv[2]))
try:
    db.update_token_counts('c1', input_tokens=7, output_tokens=3, model='gpt-x', api_call_count=1)
except Exception as e:
    print(json.dumps(str(e))); sys.exit(0)
print(json.dumps(db.get_session('c1')['input_tokens']))`,
              UPSTREAM,
              db
            ],
            { env: { ...process.env, HERMES_HOME: home }, encoding: 'utf8' }
          ).trim()
        ) as number | string
      expect(tokensAfterUpstream(file)).toBe(107)
      // The current schema (six-column key): upstream v21 refuses its own usage write, its counters untouched.
      expect(tokensAfterUpstream(solo)).toMatch(/ON CONFLICT clause does not match/)
    }
  )
})
