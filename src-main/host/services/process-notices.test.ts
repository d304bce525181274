// Which pending notices a starting host takes: those whose host process is gone or that a closing host handed over,
// never a live host's (its parent turn may still run). Real state.db, a real second process as the live owner.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { silentLogger } from '@shared/contract/log'
import { StoreRegistry } from '../../store'
import { FollowUpPort } from './follow-ups'
import { ProcessNotices } from './process-notices'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup() {
  const root = mkdtempSync(join(tmpdir(), 'cad-notices-'))
  cleanups.push(() => rmSync(root, { recursive: true, force: true }))
  const stores = new StoreRegistry(root)
  cleanups.push(() => stores.closeAll())
  const store = stores.get('default')
  await store.createSession('s1', 'desktop')
  // A one-shot host's port: a notice is saved at once and no turn runs (no gateway needed).
  const notices = new ProcessNotices({
    stores,
    followUps: new FollowUpPort({
      live: false,
      log: silentLogger,
      tipOf: async (profile, id) => stores.get(profile).resolveResumeSessionId(id)
    }),
    log: silentLogger
  })
  const record = (noticeId: string, pid: number) =>
    store.write((tx) =>
      store.pendingNoticesRepo().record(tx, {
        noticeId,
        sessionId: 's1',
        role: 'user',
        content: `${noticeId} finished`,
        displayKind: 'process_complete',
        displayMetadata: { process_id: noticeId },
        owner: { pid, started: null, token: 'another-host' },
        at: Date.now() / 1000
      })
    )
  const saved = (sessionId = 's1') =>
    store
      .getMessages({ sessionId, limit: 50 })
      .items.filter((m) => m.displayKind === 'process_complete')
      .map((m) => m.content)
  return { store, notices, record, saved }
}

describe('ProcessNotices.restore', () => {
  it("saves into the segment the conversation continues in once compression closed the notice's own", async () => {
    const { notices, record, saved, store } = await setup()
    await store.endSession('s1', 'compression')
    await store.createSession('s2', 'desktop', { parentSessionId: 's1' })
    const owner = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((r) => owner.once('exit', r))
    await record('proc_rotated', owner.pid!)
    expect(await notices.restore('default')).toBe(1)
    await expect.poll(() => saved('s2')).toEqual(['proc_rotated finished'])
    expect(saved('s1')).toEqual([])
  })

  it("leaves a live host's notice alone and takes it once that host is gone, exactly once", async () => {
    const { notices, record, saved, store } = await setup()
    const owner = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    cleanups.push(() => owner.kill('SIGKILL'))
    await record('proc_live', owner.pid!)
    expect(await notices.restore('default')).toBe(0)
    expect(saved()).toEqual([])

    const exited = new Promise((r) => owner.once('exit', r))
    owner.kill('SIGKILL')
    await exited
    expect(await notices.restore('default')).toBe(1)
    await expect.poll(saved).toEqual(['proc_live finished'])
    expect(store.pendingNoticesRepo().pending()).toEqual([])
    expect(await notices.restore('default')).toBe(0)
  })

  it('takes what a closing host handed over, even from a process still running', async () => {
    const { notices, saved, store } = await setup()
    await store.write((tx) =>
      store.pendingNoticesRepo().record(tx, {
        noticeId: 'proc_handed',
        sessionId: 's1',
        role: 'user',
        content: 'proc_handed finished',
        displayKind: 'process_complete',
        displayMetadata: null,
        owner: { pid: process.pid, started: null, token: 'closing-host' },
        at: Date.now() / 1000
      })
    )
    expect(await notices.restore('default')).toBe(0)
    await store.write((tx) => store.pendingNoticesRepo().disown(tx, 'closing-host'))
    expect(await notices.restore('default')).toBe(1)
    await expect.poll(saved).toEqual(['proc_handed finished'])
  })
})
