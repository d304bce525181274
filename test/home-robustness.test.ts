// Real homes as users have them: a corrupt profile, a newer upstream schema, a foreign write lock held for 3 s,
// and a profile folder without state.db. Driven through the CLI and the contract, the paths users take.
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { SearchResult, SessionPage } from '@shared/contract'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { cliInProcess } from './helpers/cli-in-process'

const run = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
const homes: string[] = []
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true })
})

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'cad-robust-'))
  homes.push(home)
  return home
}

async function seed(dbPath: string, id: string, text: string): Promise<void> {
  const s = new SessionStore(dbPath)
  await s.createSession(id, 'cli', { title: `chat ${id}` })
  await s.appendMessage(id, { role: 'user', content: text })
  await s.recordUsage(id, {
    model: 'm',
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    apiCalls: 1,
    costUsd: 0.01,
    costStatus: 'estimated'
  } as never)
  s.close()
}

const cli = async (home: string, ...args: string[]) => {
  const { stdout } = await run(process.execPath, ['bin/caduceus.mjs', ...args, '--home', home], {
    cwd: repo,
    env: { ...process.env, CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' }
  })
  return stdout
}

describe('a corrupt profile is isolated', () => {
  it('all-profile list/search/costs/subagents answer with the healthy profiles and name the broken one', async () => {
    const home = newHome()
    await seed(join(home, 'state.db'), 'D1', 'the heater in the default profile')
    mkdirSync(join(home, 'profiles', 'work'), { recursive: true })
    await seed(join(home, 'profiles', 'work', 'state.db'), 'W1', 'the heater at work')
    mkdirSync(join(home, 'profiles', 'broken'), { recursive: true })
    const brokenDb = join(home, 'profiles', 'broken', 'state.db')
    writeFileSync(brokenDb, Buffer.alloc(8192, 0x41)) // not a database
    const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    try {
      const list = await host.dispatcher.invoke('sessions.list', { profile: 'all' })
      expect(list.ok).toBe(true)
      const page = (list as { output: SessionPage }).output
      expect(page.items.map((s) => s.id).sort()).toEqual(['D1', 'W1'])
      expect(page.unavailable).toEqual([{ profile: 'broken', reason: expect.stringContaining('not a database') }])

      const search = await host.dispatcher.invoke('sessions.search', { profile: 'all', query: 'heater' })
      const hits = (search as { output: SearchResult }).output
      expect(hits.hits.map((h) => h.sessionId).sort()).toEqual(['D1', 'W1'])
      expect(hits.unavailable?.map((u) => u.profile)).toEqual(['broken'])

      const costs = await host.dispatcher.invoke('costs.summary', { profile: 'all' } as never)
      expect(costs.ok).toBe(true)
      expect(
        (costs as { output: { unavailable?: Array<{ profile: string }> } }).output.unavailable?.map((u) => u.profile)
      ).toEqual(['broken'])
      const subagents = await host.dispatcher.invoke('subagents.list', { profile: 'all' } as never)
      expect(subagents.ok).toBe(true)
      expect(
        (subagents as { output: { unavailable?: Array<{ profile: string }> } }).output.unavailable?.map(
          (u) => u.profile
        )
      ).toEqual(['broken'])

      const profiles = await host.dispatcher.invoke('profiles.list', {})
      const broken = (profiles as { output: Array<{ name: string; error?: string }> }).output.find(
        (p) => p.name === 'broken'
      )
      expect(broken?.error).toContain('not a database')

      // the broken profile itself answers with a clear error, not a crash
      const one = await host.dispatcher.invoke('sessions.list', { profile: 'broken' })
      expect(one).toMatchObject({
        ok: false,
        error: { code: 'unavailable', message: expect.stringContaining('not a database') }
      })
    } finally {
      await host.close()
    }
    // nothing was written to the file Caduceus could not read
    expect(readFileSync(brokenDb)).toEqual(Buffer.alloc(8192, 0x41))
    expect(existsSync(`${brokenDb}-wal`)).toBe(false)
    expect(existsSync(`${brokenDb}-journal`)).toBe(false)
  })

  it("the default profile's own state.db broken: the Subagents page and its spawn switch still answer", async () => {
    const home = newHome()
    writeFileSync(join(home, 'state.db'), Buffer.alloc(8192, 0x41))
    mkdirSync(join(home, 'profiles', 'work'), { recursive: true })
    await seed(join(home, 'profiles', 'work', 'state.db'), 'W1', 'at work')
    const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    try {
      const list = await host.dispatcher.invoke('subagents.list', { profile: 'all' } as never)
      expect(list).toMatchObject({ ok: true, output: { unavailable: [{ profile: 'default' }] } })
      const paused = await host.dispatcher.invoke('subagents.setSpawnPaused', { paused: true })
      expect(paused).toEqual({ ok: true, output: { paused: true } })
    } finally {
      await host.close()
    }
  })

  it('the CLI names it too: sessions list/search print the healthy profiles, the broken one on stderr, exit 1', async () => {
    const home = newHome()
    await seed(join(home, 'state.db'), 'D1', 'the heater in the default profile')
    mkdirSync(join(home, 'profiles', 'broken'), { recursive: true })
    writeFileSync(join(home, 'profiles', 'broken', 'state.db'), Buffer.alloc(8192, 0x41))
    // runCli in this process, in the environment a child gets (test/support/fresh-file.ts restores it); the built
    // CLI's own processes read this way below, under a foreign lock
    Object.assign(process.env, { CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' })
    const cliRun = (...args: string[]) => cliInProcess(home, ...args)
    const list = await cliRun('sessions', 'list')
    expect(list.stdout).toMatch(/default\s+D1 /)
    expect(list.stderr).toMatch(/profile broken could not be read.*not a database/)
    expect(list.code).toBe(1)
    const search = await cliRun('sessions', 'search', 'heater')
    expect(search.stdout).toContain('default/D1#')
    expect(search.stderr).toMatch(/profile broken could not be read/)
    expect(search.code).toBe(1)
    // the healthy profile alone: no note, exit 0; a malformed query says why it found nothing
    const one = await cliRun('sessions', 'search', 'heater OR', '--profile', 'default')
    expect(one).toEqual({ code: 0, stdout: expect.stringMatching(/^Search query is malformed/), stderr: '' })
  })

  it('a profile folder without state.db gets none from reads; a newer schema is served with a notice and not switched to WAL', async () => {
    const home = newHome()
    await seed(join(home, 'state.db'), 'D1', 'hello')
    mkdirSync(join(home, 'profiles', 'empty'), { recursive: true })
    mkdirSync(join(home, 'profiles', 'future'), { recursive: true })
    const future = join(home, 'profiles', 'future', 'state.db')
    await seed(future, 'F1', 'from the future')
    const raw = new Database(future)
    raw.pragma('journal_mode = DELETE')
    raw.exec('UPDATE schema_version SET version = 99')
    raw.close()
    const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    try {
      const list = (await host.dispatcher.invoke('sessions.list', { profile: 'all' })) as {
        ok: true
        output: SessionPage
      }
      expect(list.output.items.map((s) => s.id).sort()).toEqual(['D1', 'F1'])
      const notice = [{ profile: 'future', reason: expect.stringContaining('schema version 99') as string }]
      expect(list.output.notices).toEqual(notice)
      // the profile alone, listed or searched, carries its notice too (the Sessions page shows it above either)
      const one = (await host.dispatcher.invoke('sessions.list', { profile: 'future' })) as {
        ok: true
        output: SessionPage
      }
      expect([one.output.items.map((s) => s.id), one.output.notices]).toEqual([['F1'], notice])
      const found = (await host.dispatcher.invoke('sessions.search', { profile: 'future', query: 'future' })) as {
        ok: true
        output: SearchResult
      }
      expect([found.output.hits.length, found.output.notices]).toEqual([1, notice])
      const healthy = (await host.dispatcher.invoke('sessions.list', { profile: 'default' })) as {
        ok: true
        output: SessionPage
      }
      expect(healthy.output.notices).toBeUndefined()
      const profiles = (await host.dispatcher.invoke('profiles.list', {})) as {
        ok: true
        output: Array<{ name: string; notice?: string; sessionCount: number }>
      }
      expect(profiles.output.find((p) => p.name === 'future')?.notice).toContain('99')
      expect(profiles.output.find((p) => p.name === 'empty')?.sessionCount).toBe(0)
      await host.dispatcher.invoke('sessions.search', { profile: 'all', query: 'future' })
    } finally {
      await host.close()
    }
    expect(existsSync(join(home, 'profiles', 'empty', 'state.db'))).toBe(false)
    const check = new Database(future, { readonly: true })
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete')
    check.close()
  })
})

describe('a profile folder without state.db', () => {
  it('gets its file at the first write, which is announced, and is watched from then on', async () => {
    const home = newHome()
    mkdirSync(join(home, 'profiles', 'fresh'), { recursive: true })
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })
    const events: Array<{ event: string; payload: { profile?: string; sessionIds?: string[] } }> = []
    const off = host.bus.subscribe((e) => events.push(e as never))
    try {
      expect(existsSync(join(home, 'profiles', 'fresh', 'state.db'))).toBe(false)
      const line = JSON.stringify({
        id: 'n1',
        source: 'cli',
        started_at: 1700000000,
        messages: [{ role: 'user', content: 'first words', timestamp: 1700000001 }]
      })
      const r = await host.dispatcher.invoke('sessions.import', { profile: 'fresh', content: line })
      expect(r).toMatchObject({ ok: true, output: { imported: 1 } })
      expect(existsSync(join(home, 'profiles', 'fresh', 'state.db'))).toBe(true)
      expect(events.filter((e) => e.event === 'sessions.changed').map((e) => e.payload)).toEqual([
        { profile: 'fresh', sessionIds: ['n1'] }
      ])
      const list = (await host.dispatcher.invoke('sessions.list', { profile: 'fresh' })) as {
        ok: true
        output: SessionPage
      }
      expect(list.output.items.map((s) => s.id)).toEqual(['n1'])
    } finally {
      off()
      await host.close()
    }
  })
})

describe('reads never need the write lock', () => {
  it('list, search and session detail succeed while another process holds BEGIN IMMEDIATE for 3 s', async () => {
    const home = newHome()
    await seed(join(home, 'state.db'), 'L1', 'the heater is loud')
    const holder = spawn(
      process.execPath,
      [join(repo, 'src-main/store/test-fixtures/hold-lock.mjs'), join(home, 'state.db'), '3000'],
      { cwd: repo }
    )
    let out = ''
    await new Promise<void>((ok, fail) => {
      holder.stdout.on('data', (d) => {
        out += d
        if (out.includes('locked')) ok()
      })
      holder.on('error', fail)
      holder.on('exit', (code) => fail(new Error(`lock holder exited ${code}`)))
    })
    try {
      // three separate CLI processes, concurrently (each opens the home from scratch)
      const [listed, searched, showed] = await Promise.all([
        cli(home, 'sessions', 'list', '--json'),
        cli(home, 'sessions', 'search', 'heater', '--json'),
        cli(home, 'sessions', 'show', 'L1', '--json')
      ])
      expect((JSON.parse(listed) as SessionPage).items.map((s) => s.id)).toEqual(['L1'])
      expect((JSON.parse(searched) as SearchResult).hits.map((h) => h.sessionId)).toEqual(['L1'])
      const shown = JSON.parse(showed) as { summary: { id: string }; messages: unknown[] }
      expect(shown.summary.id).toBe('L1')
      expect(shown.messages).toHaveLength(1)
      expect(out).not.toContain('released') // the holder only lets go once its stdin closes, below
    } finally {
      holder.stdin.end()
      await new Promise((r) => {
        if (holder.exitCode !== null) r(null)
        else holder.on('exit', r)
      })
    }
  }, 30_000)
})
