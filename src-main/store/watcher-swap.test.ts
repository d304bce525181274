// The file behind a live store's path changes under it: a backup renamed over state.db (its -wal/-shm removed),
// the file deleted outright, or a state.db another process creates in a profile folder that had none. The store
// and its watcher must follow the path — never keep serving (or writing to) the unlinked inode.
import Database from 'better-sqlite3'
import { execFile, execFileSync } from 'node:child_process'
import { copyFileSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { readRetrying, SessionStore, SessionWatcher } from './index'
import { openFileOf } from './session-store'
import { restoreBackup, runWriter, UPSTREAM_APPEND } from './test-fixtures/spawn-writer'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)

const open: Array<{ close?: () => void; stop?: () => void }> = []
afterEach(() => {
  for (const o of open.splice(0).reverse()) (o.stop ?? o.close)?.call(o)
})

function waitFor(pred: () => boolean, timeoutMs = 15_000): Promise<void> {
  return new Promise((ok, fail) => {
    const started = Date.now()
    const poll = () =>
      pred() ? ok() : Date.now() - started > timeoutMs ? fail(new Error('timed out waiting')) : setTimeout(poll, 20)
    poll()
  })
}

/** What a fresh connection (another reader) sees in the file at `path` now. */
function readFresh(path: string): Record<string, string | null> {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const rows = db.prepare('SELECT id, title FROM sessions ORDER BY id').all() as Array<{
      id: string
      title: string | null
    }>
    return Object.fromEntries(rows.map((r) => [r.id, r.title]))
  } finally {
    db.close()
  }
}

/** Files this process still holds open that were unlinked (Linux; [] elsewhere). */
function deletedOpen(): string[] {
  try {
    return readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`)
        } catch {
          return '' // closed while listed
        }
      })
      .filter((l) => l.includes('state.db') && l.endsWith('(deleted)'))
  } catch {
    return [] // no /proc/self/fd (not Linux): nothing to count
  }
}

/**
 * Which process holds a lock on byte 128 of an -shm (SQLite's unix VFS takes a shared lock there for as long as a
 * connection uses the -shm), asked of the kernel (F_GETLK) from another process; 0 when none does.
 */
function shmUserLockHolder(shm: string): number {
  const probe = [
    'import fcntl, os, struct, sys',
    'fd = os.open(sys.argv[1], os.O_RDWR)',
    "t, _, _, _, pid = struct.unpack('hhqqi', fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 128, 1, 0)))",
    'print(0 if t == fcntl.F_UNLCK else pid)'
  ].join('\n')
  return Number(execFileSync('/usr/bin/python3', ['-c', probe, shm], { encoding: 'utf8' }).trim())
}

/**
 * A live home with sessions `a` and `b`, and a backup of the same profile holding `a` (retitled) and `c`; `larger`:
 * the backup also holds a table the live file lacks, with a 200 KB value (pages past the live file's last one).
 */
async function homeWithBackup({ larger = false } = {}) {
  const home = tempDir('cad-swap-')
  const path = join(home, 'state.db')
  const store = new SessionStore(path, { profile: 'default' })
  open.push(store)
  await store.createSession('a', 'cli')
  await store.createSession('b', 'cli')
  const backup = new SessionStore(join(tempDir('cad-swap-backup-'), 'state.db'), { profile: 'default' })
  await backup.createSession('a', 'cli')
  await backup.setTitle('a', 'from the backup')
  await backup.createSession('c', 'cli')
  backup.close() // checkpointed: the backup is one self-contained file
  if (larger) {
    const db = new Database(backup.path)
    db.exec('CREATE TABLE extra (x BLOB)')
    db.prepare('INSERT INTO extra VALUES (?)').run(Buffer.alloc(200_000, 7))
    db.close()
  }
  return { path, store, backup: backup.path }
}

const ids = (store: SessionStore) =>
  store
    .listSessions({ limit: 50 })
    .items.map((s) => s.id)
    .sort()

describe('a state.db replaced, deleted or created under a live store', () => {
  it('a backup renamed over state.db: the watcher reopens, names every session and the next write lands in the new file', async () => {
    const { path, store, backup } = await homeWithBackup()
    const events: string[][] = []
    const files: string[] = []
    open.push(new SessionWatcher(store, (e) => events.push(e.sessionIds), { onFile: (c) => files.push(c) }).start())
    await restoreBackup(backup, path)
    await waitFor(() => files.length > 0)
    expect(files).toEqual(['replaced'])
    expect(new Set(events.flat())).toEqual(new Set(['a', 'b', 'c'])) // b is gone, a changed, c is new
    expect(ids(store)).toEqual(['a', 'c'])
    expect(store.getSession('a')!.title).toBe('from the backup')
    await store.setTitle('c', 'renamed after the restore')
    expect(readFresh(path)).toEqual({ a: 'from the backup', c: 'renamed after the restore' })
    expect(deletedOpen()).toEqual([])
  })

  it("a restore that leaves the old -wal/-shm (upstream's snapshot restore): the restored file is read, not the old WAL over it, and another process's write right after it is kept", async () => {
    const { path, store, backup } = await homeWithBackup()
    const files: string[] = []
    open.push(new SessionWatcher(store, () => {}, { onFile: (c) => files.push(c) }).start())
    const restored = Date.now()
    // this store's own connections keep the old file's -wal/-shm, whose frames (sessions a and b) are not yet in the
    // old file: read over the restored file they would bring back what the restore replaced
    await restoreBackup(backup, path, true)
    await new Promise((r) => setTimeout(r, 300))
    // another program writes to the restored file meanwhile, through the same -wal/-shm
    await new Promise((ok, fail) =>
      execFile(process.execPath, [UPSTREAM_APPEND, path, 'c', 'written right after the restore'], (e) =>
        e ? fail(e) : ok(null)
      )
    )
    await waitFor(() => files.length > 0, 6000)
    // the 2 s a restore gets to remove them end without a file event: not the 15 s fallback tick
    expect(Date.now() - restored).toBeLessThan(3500)
    expect(files).toEqual(['replaced'])
    expect(ids(store)).toEqual(['a', 'c'])
    expect(store.getSession('a')!.title).toBe('from the backup')
    expect(store.getSession('c')!.messageCount).toBe(1)
    await store.setTitle('c', 'renamed after the restore')
    expect(readFresh(path)).toEqual({ a: 'from the backup', c: 'renamed after the restore' })
    // Both files use that one -shm. This process still holds its lock on it (the one every connection using the -shm
    // holds): a handle on the old file closed after the new file's connection opened would have dropped it (POSIX),
    // and the next program to open the file would take itself for the -shm's only user and truncate it under this
    // process's mapping.
    expect(shmUserLockHolder(`${path}-shm`)).toBe(process.pid)
  })

  it("a restore larger than the old file, its -wal/-shm left: another program's append after this store emptied the old log, and this store's write after it, leave a file upstream's SQLite reads whole", async () => {
    const { path, store, backup } = await homeWithBackup({ larger: true })
    const files: string[] = []
    open.push(new SessionWatcher(store, () => {}, { onFile: (c) => files.push(c) }).start())
    await restoreBackup(backup, path, true)
    // The check the watcher or a write makes: the old log is emptied into the old file, and the new file waits for
    // the old -wal/-shm to go.
    expect(() => store.syncFile()).toThrow(/waiting for its old -wal\/-shm/)
    // Emptying the log left the wal-index's page count at the old file's: had this process kept the -shm mapped, the
    // append would take the restored file for one of the old file's size ("database disk image is malformed").
    const appended = execFileSync(process.execPath, [UPSTREAM_APPEND, path, 'c', 'written after the restore'], {
      encoding: 'utf8'
    })
    expect(JSON.parse(appended).messageId).toBeGreaterThan(0)
    await store.setTitle('c', 'renamed after the append')
    await waitFor(() => files.length > 0)
    expect(files).toEqual(['replaced'])
    expect(ids(store)).toEqual(['a', 'c'])
    // through upstream's SQLite (the system Python's): the whole file, the rows both programs wrote, the restored table
    const seen = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        [
          'import sqlite3, sys',
          'db = sqlite3.connect(sys.argv[1])',
          "print(db.execute('pragma integrity_check').fetchall())",
          "print(db.execute('select id, title, message_count from sessions order by id').fetchall())",
          "print(db.execute('select session_id, content from messages').fetchall())",
          "print(db.execute('select length(x) from extra').fetchall())"
        ].join('\n'),
        path
      ],
      { encoding: 'utf8' }
    )
    expect(seen.trim().split('\n')).toEqual([
      "[('ok',)]",
      "[('a', 'from the backup', 0), ('c', 'renamed after the append', 1)]",
      "[('c', 'written after the restore')]",
      '[(200000,)]'
    ])
  })

  it('a read in the grace after a restore that left the old -wal/-shm waits as for a lock, then reads the restored file (never an empty home)', async () => {
    const { path, store, backup } = await homeWithBackup()
    // upstream's snapshot restore, in this process: copied beside state.db, moved over it, the old -wal/-shm left
    copyFileSync(backup, `${path}.restoring`)
    renameSync(`${path}.restoring`, path)
    // the watcher's check lets go of the old file at once; the restored one is not opened during the grace
    expect(() => store.syncFile()).toThrow(/waiting for its old -wal\/-shm/)
    // a page's list in that window: was [] (the placeholder read as a home without state.db)
    expect(() => ids(store)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY_SWAP' }))
    expect(openFileOf(store)).toBeNull() // still not opened by that read
    // a read request waits it out as it waits out a lock (the dispatcher's retry, the lock banner), then reads the new file
    let waited = false
    expect(
      await readRetrying(
        () => ids(store),
        10_000,
        () => (waited = true)
      )
    ).toEqual(['a', 'c'])
    expect(waited).toBe(true)
    expect(store.getSession('a')!.title).toBe('from the backup')
  })

  it('a write that comes before any check goes to the restored file, not the unlinked one', async () => {
    const { path, store, backup } = await homeWithBackup()
    await restoreBackup(backup, path)
    expect(await store.setTitle('c', 'written right after')).toBe(true)
    expect(await store.setTitle('b', 'only in the old file')).toBe(false) // b is not in the restored file
    expect(readFresh(path)).toEqual({ a: 'from the backup', c: 'written right after' })
  })

  it('a state.db deleted outright reads as an empty profile, and the next write creates it again', async () => {
    const { path, store } = await homeWithBackup()
    const events: string[][] = []
    const files: string[] = []
    open.push(new SessionWatcher(store, (e) => events.push(e.sessionIds), { onFile: (c) => files.push(c) }).start())
    await restoreBackup(null, path)
    await waitFor(() => files.length > 0)
    expect(files).toEqual(['deleted'])
    expect(new Set(events.flat())).toEqual(new Set(['a', 'b']))
    expect(ids(store)).toEqual([])
    expect(store.sessionCount()).toBe(0)
    expect(store.getSession('a')).toBeNull()
    await store.createSession('d', 'cli')
    await waitFor(() => files.length > 1)
    expect(files).toEqual(['deleted', 'appeared'])
    expect(readFresh(path)).toEqual({ d: null })
    expect(deletedOpen()).toEqual([])
  })

  it("a state.db deleted with its -wal/-shm left: the file this store's next write makes there does not bring the deleted sessions back", async () => {
    const { path, store } = await homeWithBackup()
    for (let i = 0; i < 20; i++) await store.setTitle('a', `title ${i}`) // frames in the WAL, none checkpointed yet
    const files: string[] = []
    open.push(new SessionWatcher(store, () => {}, { onFile: (c) => files.push(c) }).start())
    await restoreBackup(null, path, true) // `rm state.db`: the -wal/-shm stay
    await waitFor(() => files.length > 0)
    expect(files).toEqual(['deleted'])
    // The old log stayed beside the file this store's next write created, which took it for its own: every deleted
    // session came back.
    await store.createSession('d', 'cli')
    const seen = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select group_concat(id) from sessions").fetchone()[0])',
        path
      ],
      { encoding: 'utf8' }
    )
    expect(seen.trim()).toBe('d') // upstream's SQLite sees only the session made after the delete
  })

  // Root stats any file, so a symlink loop stands in for a state.db this user may not stat (EACCES on its folder).
  it('a state.db that can no longer be stat-ed is not read as deleted: the store keeps its file and a write fails', async () => {
    const { path, store } = await homeWithBackup()
    const moved = `${path}.moved`
    renameSync(path, moved)
    symlinkSync(path, path) // ELOOP on every stat, as EACCES is
    try {
      expect(() => store.syncFile()).toThrow(/ELOOP/)
      expect(ids(store)).toEqual(['a', 'b']) // not an empty profile
      await expect(store.createSession('d', 'cli')).rejects.toThrow(/ELOOP/)
    } finally {
      rmSync(path)
      renameSync(moved, path)
    }
    expect(store.syncFile()).toBe('same')
  })

  it('a profile folder without state.db: the file another process creates is noticed and its sessions named', async () => {
    const home = tempDir('cad-swap-profile-')
    const path = join(home, 'state.db')
    const store = new SessionStore(path, { profile: 'work', lazyCreate: true })
    open.push(store)
    expect(store.pendingCreate).toBe(true)
    const events: string[][] = []
    const files: string[] = []
    open.push(new SessionWatcher(store, (e) => events.push(e.sessionIds), { onFile: (c) => files.push(c) }).start())
    await runWriter([path, 'first', 'append', '2'])
    await waitFor(() => events.flat().includes('first'))
    expect(files).toEqual(['appeared'])
    expect(store.pendingCreate).toBe(false)
    expect(ids(store)).toEqual(['first'])
    expect(store.getSession('first')!.messageCount).toBe(2)
  })
})

describe('a reopen that fails after a swap', () => {
  it('keeps the old file: the next check still calls it a replacement and names the sessions only it held', async () => {
    const { path, store, backup } = await homeWithBackup()
    const events: string[][] = []
    const files: string[] = []
    const watcher = new SessionWatcher(store, (e) => events.push(e.sessionIds), { onFile: (c) => files.push(c) })
    open.push(watcher.start())
    // The first reopen throws (a lock, a half-written file); later ones succeed.
    const w = watcher as unknown as { connect: (f: string | null) => unknown }
    const realConnect = w.connect.bind(watcher)
    let failed = 0
    w.connect = (f) => {
      if (failed++ === 0) throw new Error('database is locked')
      return realConnect(f)
    }
    await restoreBackup(backup, path)
    await waitFor(() => files.length > 0)
    expect(failed).toBeGreaterThan(1) // a failed reopen, then the one that named the change
    expect(files).toEqual(['replaced'])
    expect(new Set(events.flat())).toEqual(new Set(['a', 'b', 'c'])) // b lived only in the old file

    // The same when the connection opens but cannot be read: the old file's sessions are carried to the next try.
    const again = await homeWithBackup()
    const events2: string[][] = []
    const files2: string[] = []
    const w2 = new SessionWatcher(again.store, (e) => events2.push(e.sessionIds), { onFile: (c) => files2.push(c) })
    open.push(w2.start())
    const i2 = w2 as unknown as { install: (...a: unknown[]) => void }
    const realInstall = i2.install.bind(w2)
    let failed2 = 0
    i2.install = (...a) => {
      if (failed2++ === 0) throw new Error('file is not a database')
      realInstall(...a)
    }
    await restoreBackup(again.backup, again.path)
    await waitFor(() => files2.length > 0)
    expect(failed2).toBeGreaterThan(1)
    expect(files2).toEqual(['replaced'])
    expect(new Set(events2.flat())).toEqual(new Set(['a', 'b', 'c']))
  })
})
