// A live host while another program swaps the files under it: a backup restored over state.db (renamed over it, its
// -wal/-shm removed), a profile folder (`hermes profile create work`) whose state.db upstream creates on first use,
// and a profile created all at once (folder and state.db together). The host follows the path each time, serves
// what is on disk now, writes into that file and tells the renderer what to read again.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { restoreBackup, runWriter } from '../src-main/store/test-fixtures/spawn-writer'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
type Event = { event: string; payload: Rec }

afterAll(cleanupTempDirs)
const hosts: Host[] = []
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close()
})

const live = async (home: string) => {
  const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
  hosts.push(host)
  const events: Event[] = []
  host.bus.subscribe((e) => events.push(e as Event))
  return { host, events }
}
const call = async (host: Host, name: string, input: unknown): Promise<Rec> => {
  const r = await host.dispatcher.invoke(name as never, input as never)
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.output as Rec
}
const listed = async (host: Host, profile: string) =>
  ((await call(host, 'sessions.list', { profile })).items as Rec[]).map((s) => s.id as string).sort()
const counts = async (host: Host) =>
  Object.fromEntries(((await call(host, 'profiles.list', {})) as Rec[]).map((p) => [p.name, p.sessionCount]))
const named = (events: Event[], profile: string) =>
  new Set(
    events
      .filter((e) => e.event === 'sessions.changed' && e.payload.profile === profile)
      .flatMap((e) => e.payload.sessionIds as string[])
  )

function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  return new Promise((ok, fail) => {
    const started = Date.now()
    const poll = async () =>
      (await pred())
        ? ok()
        : Date.now() - started > timeoutMs
          ? fail(new Error('timed out waiting'))
          : setTimeout(poll, 50)
    void poll()
  })
}

function titlesIn(path: string): Record<string, string | null> {
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

describe('a live host follows the files another program swaps under it', () => {
  it('a backup restored over state.db: the list shows the backup, the renderer is told, a rename lands in the new file', async () => {
    const home = tempDir('cad-swap-host-')
    const path = join(home, 'state.db')
    const before = new SessionStore(path, { profile: 'default' })
    await before.createSession('kept', 'cli')
    await before.createSession('lost', 'cli')
    before.close()
    const backup = new SessionStore(join(tempDir('cad-swap-host-backup-'), 'state.db'), { profile: 'default' })
    await backup.createSession('kept', 'cli')
    await backup.setTitle('kept', 'as in the backup')
    await backup.createSession('restored', 'cli')
    backup.close()

    const { host, events } = await live(home)
    expect(await listed(host, 'default')).toEqual(['kept', 'lost'])
    await restoreBackup(backup.path, path)
    await waitFor(async () => (await listed(host, 'default')).join() === 'kept,restored')
    await waitFor(() => ['kept', 'lost', 'restored'].every((id) => named(events, 'default').has(id)))
    expect(events.some((e) => e.event === 'profiles.changed')).toBe(true)
    expect((await counts(host)).default).toBe(2)

    await call(host, 'sessions.update', {
      profile: 'default',
      sessionId: 'restored',
      title: 'renamed after the restore'
    })
    expect(titlesIn(path)).toEqual({ kept: 'as in the backup', restored: 'renamed after the restore' })
  })

  it('a read in the grace after a restore that left the old -wal/-shm is said as a replaced file being reopened, not a lock', async () => {
    const home = tempDir('cad-swap-grace-')
    const path = join(home, 'state.db')
    const backup = new SessionStore(join(tempDir('cad-swap-grace-backup-'), 'state.db'), { profile: 'default' })
    await backup.createSession('restored', 'cli')
    backup.close()
    const before = new SessionStore(path, { profile: 'default' })
    await before.createSession('lost', 'cli')
    before.close()
    const { host, events } = await live(home)
    await call(host, 'sessions.update', { profile: 'default', sessionId: 'lost', title: 'kept open' }) // -wal/-shm there
    // upstream's snapshot restore: a copy moved over state.db, the old -wal/-shm left beside it
    copyFileSync(backup.path, `${path}.restoring`)
    renameSync(`${path}.restoring`, path)
    // the watcher lets go of the old file; reads in the grace wait, then read the restored file
    await waitFor(async () => (await listed(host, 'default')).join() === 'restored')
    const waits = events.filter((e) => e.event === 'store.lockChanged').map((e) => e.payload)
    expect(waits).toContainEqual({ profile: 'default', request: 'sessions.list', state: 'waiting', cause: 'replaced' })
    expect(waits.filter((w) => w.cause !== 'replaced')).toEqual([])
  })

  it("a read that meets its profile's store closed (the host shutting down, the profile removed) answers unavailable, not an internal error", async () => {
    const home = tempDir('cad-closed-host-')
    const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    hosts.push(host)
    expect(await listed(host, 'default')).toEqual([])
    host.stores.get('default').close() // as closeAll or a vanished profile does, under a request still holding it
    const r = await host.dispatcher.invoke('sessions.list', { profile: 'default' })
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: expect.stringMatching(/state\.db was closed .*nothing was read/) }
    })
  })

  it('a profile folder made before its state.db: the file upstream creates later shows with its sessions', async () => {
    const root = tempDir('cad-swap-host-root-')
    const work = join(root, 'profiles', 'work')
    mkdirSync(work, { recursive: true })
    writeFileSync(join(work, 'config.yaml'), 'model:\n  default: test\n')
    const { host, events } = await live(root)
    expect((await counts(host)).work).toBe(0)

    await runWriter([join(work, 'state.db'), 'first-use', 'append', '2'])
    await waitFor(async () => (await counts(host)).work === 1)
    expect(await listed(host, 'work')).toEqual(['first-use'])
    await waitFor(() => named(events, 'work').has('first-use'))
    expect(events.some((e) => e.event === 'profiles.changed')).toBe(true)
  })

  it('a profile created all at once (folder and state.db together): its sessions are announced, not just its count', async () => {
    const root = tempDir('cad-swap-host-root-')
    const { host, events } = await live(root)
    // a home with no profiles/ (upstream's single-profile ~/.hermes) is not given one by being served
    expect(existsSync(join(root, 'profiles'))).toBe(false)
    const made = tempDir('cad-swap-host-made-')
    await runWriter([join(made, 'state.db'), 'born-with-it', 'append', '1'])
    // upstream's `profile create` + first use, seen by the host as the profiles folder and, at once, a new folder in
    // it holding a state.db
    mkdirSync(join(root, 'profiles'))
    renameSync(made, join(root, 'profiles', 'fresh'))
    await waitFor(() => named(events, 'fresh').has('born-with-it'))
    expect(
      events.some((e) => e.event === 'profiles.changed' && (e.payload.profiles as string[]).includes('fresh'))
    ).toBe(true)
    expect((await counts(host)).fresh).toBe(1)
    expect(await listed(host, 'fresh')).toEqual(['born-with-it'])
  })
})
