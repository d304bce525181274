// The host's sessions.changed as another process's writes make it: a child's change names its parent, so a page open
// on the parent hears of a delegate it does not list yet (the watcher itself knows only the ids that changed).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EventPayload } from '@shared/contract'
import { createHost, redact } from '..'
import type { Host } from '../compose'
import { buildGraph } from '../compose/create-turn-host'
import { createLogger } from '../log/log'
import { isMultiplexActive, runInProfileScope } from '../../scope'
import { SessionStore } from '../../store'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'

afterAll(cleanupTempDirs)

describe('memory.changed', () => {
  it("is emitted when another process edits a profile's MEMORY.md", async () => {
    const home = tempDir('cad-memory-changed-')
    mkdirSync(join(home, 'memories'))
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    const events: unknown[] = []
    const off = host.bus.subscribe((e) => {
      if (e.event === 'memory.changed') events.push(e.payload)
    })
    try {
      writeFileSync(join(home, 'memories', 'MEMORY.md'), 'written by upstream')
      await expect.poll(() => events, { timeout: 10_000, interval: 20 }).toEqual([{ profile: 'default' }])
    } finally {
      off()
      await host.close()
    }
  })
})

describe('cron.changed', () => {
  it("is emitted when another process rewrites a profile's cron/jobs.json, for that profile only", async () => {
    const home = tempDir('cad-cron-changed-')
    mkdirSync(join(home, 'profiles', 'work', 'cron'), { recursive: true })
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    const events: unknown[] = []
    const off = host.bus.subscribe((e) => {
      if (e.event === 'cron.changed') events.push(e.payload)
    })
    try {
      // as upstream's cron CLI saves it: a temp file in the folder renamed over jobs.json (here the first one)
      const dir = join(home, 'profiles', 'work', 'cron')
      writeFileSync(join(dir, '.jobs_tmp.json'), '{"jobs": []}')
      renameSync(join(dir, '.jobs_tmp.json'), join(dir, 'jobs.json'))
      await expect.poll(() => events, { timeout: 1500, interval: 20 }).toEqual([{ profile: 'work' }])
    } finally {
      off()
      await host.close()
    }
  })
})

describe('sessions.changed', () => {
  it("names the parents of the changed sessions: another process's delegate of an open session", async () => {
    const home = tempDir('cad-parents-')
    const other = new SessionStore(join(home, 'state.db'))
    await other.createSession('P', 'cli', { title: 'parent' })
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    const events: Array<EventPayload<'sessions.changed'>> = []
    const off = host.bus.subscribe((e) => {
      const ev = e as { event: string; payload: EventPayload<'sessions.changed'> }
      if (ev.event === 'sessions.changed') events.push(ev.payload)
    })
    try {
      const seen = (ids: string[]) =>
        expect.poll(() => events.find((e) => e.sessionIds.join() === ids.join()), { timeout: 10_000, interval: 20 })
      await other.createSession('C', 'delegate', { parentSessionId: 'P', modelConfig: { _delegate_from: 'P' } })
      await seen(['C']).toEqual({ profile: 'default', sessionIds: ['C'], parentIds: ['P'] })
      await other.appendMessage('P', { role: 'user', content: 'no parent of its own' })
      await seen(['P']).toEqual({ profile: 'default', sessionIds: ['P'] })
    } finally {
      off()
      other.close()
      await host.close()
    }
  })
})

// Two hosts in one process (tests build several; a `caduceus serve` beside the app's own would too) keep their own
// state: what one host was given reaches neither the other's stores nor its memory guard nor its profile names.
async function homeWithSession(prefix: string, id: string): Promise<string> {
  const home = tempDir(prefix)
  const store = new SessionStore(join(home, 'state.db'))
  await store.createSession(id, 'cli', { title: id })
  store.close()
  return home
}

const hostOn = (home: string, extra: { nativeBinding?: string } = {}) =>
  createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger(), ...extra })

async function listed(h: Host): Promise<string[] | string> {
  const r = (await h.dispatcher.invoke('sessions.list', { profile: 'default' })) as {
    ok: boolean
    output?: { items: Array<{ id: string }> }
    error?: { message: string }
  }
  return r.ok ? r.output!.items.map((s) => s.id) : r.error!.message
}

describe('two hosts in one process', () => {
  it("load each their own better-sqlite3 build: one host's binding never reaches the other's stores", async () => {
    const a = await hostOn(await homeWithSession('cad-two-a-', 'in-a'), { nativeBinding: '/nonexistent/addon.node' })
    const b = await hostOn(await homeWithSession('cad-two-b-', 'in-b'))
    try {
      expect(await listed(b)).toEqual(['in-b'])
      // A's stores load the build A was given (here one that is not there), so A cannot read its own file.
      expect(await listed(a)).toMatch(/nonexistent/)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("keep each their own share of the multiplex guard: a one-profile host does not switch off another's", async () => {
    const two = await homeWithSession('cad-two-multi-', 'in-default')
    mkdirSync(join(two, 'profiles', 'work'), { recursive: true })
    const a = await hostOn(two)
    expect(isMultiplexActive()).toBe(true)
    const b = await hostOn(await homeWithSession('cad-two-single-', 'in-b'))
    const c = await hostOn(await homeWithSession('cad-two-third-', 'in-c'))
    try {
      // B and C serve one profile each: A's two still make the process multiplexed, and so do B and C together
      expect(isMultiplexActive()).toBe(true)
      await a.close()
      expect(isMultiplexActive()).toBe(true)
      await b.close()
      expect(isMultiplexActive()).toBe(false)
    } finally {
      await a.close()
      await b.close()
      await c.close()
    }
  })

  it("mask each their own secrets in their own logs, and a closed host's leave the process's last resort", async () => {
    // Keys of no known shape: only a mask that holds the value hides them.
    const keys = { a: 'alpha-plain-value-1111', b: 'bravo-plain-value-2222' }
    const open = async (name: 'a' | 'b') => {
      const home = tempDir(`cad-two-mask-${name}-`)
      writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${keys[name]}\n`)
      // each host writes its own log (logPaths reads the folder when the host is built)
      process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
      const host = await createHost({ home, headless: true, live: false })
      return { host, errors: join(home, 'logs', 'errors.log') }
    }
    const before = process.env.CADUCEUS_LOG_DIR
    const a = await open('a')
    const b = await open('b')
    if (before === undefined) delete process.env.CADUCEUS_LOG_DIR
    else process.env.CADUCEUS_LOG_DIR = before
    try {
      a.host.log.error('test', `provider said: bad key ${keys.a}`)
      b.host.log.error('test', `provider said: bad key ${keys.b}`)
      expect(readFileSync(a.errors, 'utf8')).toContain('bad key ***')
      expect(readFileSync(b.errors, 'utf8')).toContain('bad key ***')
      // each mask holds its own host's secrets only
      expect(a.host.vault.mask.redact(keys.b)).toBe(keys.b)
      expect(b.host.vault.mask.redact(keys.a)).toBe(keys.a)
      // lines no host owns (uncaught errors, shared stderr) are masked with every live host's secrets
      expect(redact(`${keys.a} ${keys.b}`)).toBe('*** ***')
      await a.host.close()
      expect(redact(`${keys.a} ${keys.b}`)).toBe(`${keys.a} ***`)
    } finally {
      await a.host.close()
      await b.host.close()
    }
    expect(redact(keys.b)).toBe(keys.b)
  })

  it('name the profile a delegation row records under their own root', async () => {
    const roots = [tempDir('cad-two-root-a-'), tempDir('cad-two-root-b-')]
    for (const root of roots) mkdirSync(join(root, 'profiles', 'work'), { recursive: true })
    const [a, b] = [
      await buildGraph({ home: roots[0], headless: true, live: false, log: createLogger() }),
      await buildGraph({ home: roots[1], headless: true, live: false, log: createLogger() })
    ]
    try {
      // what a delegation started in A's `work` turn writes as its owner (retained.ts writeChildren)
      const owner = (g: typeof a, root: string) =>
        runInProfileScope(join(root, 'profiles', 'work'), {}, () =>
          g.runtime.delegation('work').registry.ctx.currentProfile()
        )
      expect(owner(a, roots[0]!)).toBe('work')
      expect(owner(b, roots[1]!)).toBe('work')
    } finally {
      await a.services.close()
      await b.services.close()
    }
  })
})
