// Issue 21: a home only upstream Hermes (schema v21) has written, two profiles, golden data made by upstream's
// own hermes_state.py (test/fixtures/upstream). Every read the UI makes answers with content, nothing reaches the
// log as "no such column/table", and afterwards every file under the root and the schema objects are unchanged.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { LogRecord } from '@shared/contract/log'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'

const run = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
const GOLDEN = join(repo, 'test/fixtures/upstream/v21-two-profiles')
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function copyHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'cad-untouched-'))
  dirs.push(home)
  cpSync(GOLDEN, home, { recursive: true })
  return home
}

/** Every file under the root with its bytes, plus each state.db's schema objects. */
function snapshot(home: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.set(relative(home, p), createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16))
    }
  }
  walk(home)
  for (const db of ['state.db', 'profiles/work/state.db']) {
    // a copy: even a read-only open of the real file would leave -wal/-shm behind
    const copy = join(mkdtempSync(join(tmpdir(), 'cad-untouched-schema-')), 'state.db')
    dirs.push(dirname(copy))
    copyFileSync(join(home, db), copy)
    const raw = new Database(copy, { readonly: true, fileMustExist: true })
    const objs = raw.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all() as Array<{
      type: string
      name: string
      sql: string | null
    }>
    raw.close()
    for (const o of objs)
      out.set(
        `${db}#${o.type}:${o.name}`,
        createHash('sha256')
          .update(o.sql ?? '')
          .digest('hex')
      )
  }
  return out
}

const ok = <T>(r: { ok: boolean }): T => {
  if (!r.ok) throw new Error(JSON.stringify(r))
  return (r as unknown as { output: T }).output
}

describe('an existing v21 home that only upstream wrote', () => {
  it('answers every read request per profile and across profiles, and reading changes no byte', async () => {
    const home = copyHome()
    // the read-only snapshot above itself creates nothing: take the reference after a first look
    const before = snapshot(home)
    const records: LogRecord[] = []
    const log = createLogger()
    log.attach((r) => records.push(r))
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log })
    const call = async <T>(name: string, input: unknown): Promise<T> =>
      ok<T>(await host.dispatcher.invoke(name as never, input as never))
    try {
      const info = await call<{ profiles: Array<{ name: string }> }>('app.info', {})
      expect(info.profiles.map((p) => p.name).sort()).toEqual(['default', 'work'])
      const profiles = await call<Array<{ name: string; sessionCount: number }>>('profiles.list', {})
      expect(profiles.find((p) => p.name === 'default')?.sessionCount).toBe(3)
      expect(profiles.find((p) => p.name === 'work')?.sessionCount).toBe(2)

      const all = await call<{ items: Array<{ id: string; profile: string }> }>('sessions.list', {
        profile: 'all',
        includeChildren: true
      })
      expect(all.items.map((s) => s.id).sort()).toEqual([
        '20260101_090000_aa01',
        '20260101_090100_cc01',
        '20260102_100000_aa02',
        '20260103_080000_bb01',
        '20260103_080100_cc02'
      ])
      const search = await call<{ hits: Array<{ sessionId: string }> }>('sessions.search', {
        profile: 'all',
        query: 'igniter'
      })
      expect(search.hits.map((h) => h.sessionId)).toContain('20260101_090000_aa01')
      // A call upstream could not price is stored as cost_status 'unknown' with 0.0: unpriced, never $0.
      const unpriced = { usd: null, status: 'unpriced', complete: false }
      const aa02 = { profile: 'default', sessionId: '20260102_100000_aa02' }
      expect((await call<{ summary: { cost: unknown } }>('sessions.get', aa02)).summary.cost).toEqual(unpriced)
      const aa02Cost = await call<{ own: unknown; perModel: Array<{ cost: unknown }> }>('costs.session', aa02)
      expect(aa02Cost.own).toMatchObject({ usd: null, status: 'unpriced' })
      expect(aa02Cost.perModel.map((m) => m.cost)).toEqual([unpriced])

      for (const [profile, sid, child] of [
        ['default', '20260101_090000_aa01', '20260101_090100_cc01'],
        ['work', '20260103_080000_bb01', '20260103_080100_cc02']
      ] as const) {
        const list = await call<{ items: Array<{ id: string }> }>('sessions.list', { profile })
        expect(list.items.map((s) => s.id)).toContain(sid)
        const detail = await call<{ summary: unknown; lineage: { delegateChildren: Array<{ id: string }> } }>(
          'sessions.get',
          { profile, sessionId: sid }
        )
        expect(detail.summary).toMatchObject({ id: sid })
        expect(detail.lineage.delegateChildren.map((c) => c.id)).toEqual([child])
        const msgs = await call<{ items: Array<{ role: string }> }>('sessions.messages', { profile, sessionId: sid })
        expect(msgs.items.length).toBeGreaterThanOrEqual(2)
        const childDetail = await call<Record<string, unknown>>('sessions.get', { profile, sessionId: child })
        expect(JSON.stringify(childDetail)).toContain(sid)
        const cost = await call<Record<string, unknown>>('costs.session', { profile, sessionId: sid })
        expect(JSON.stringify(cost)).toContain('gpt-4o')
        const summary = await call<Record<string, unknown>>('costs.summary', { profile, days: 3650 })
        expect(JSON.stringify(summary)).toContain('gpt-4o')
        const subs = await call<{ items: Array<Record<string, unknown>> }>('subagents.list', {
          profile,
          includeTombstoned: true
        })
        // upstream's own async delegation (no child manifest: its table has none) is listed from its row; the
        // delegate child above started with another goal, so none is linked: it is listed from its own session
        // (upstream's synchronous delegate tool writes no row)
        const fromSession = expect.objectContaining({
          delegationId: '',
          childSessionId: child,
          parentSessionId: sid,
          foreign: true
        })
        expect(subs.items).toEqual(
          profile === 'default'
            ? [
                expect.objectContaining({
                  delegationId: 'deleg_0001',
                  state: 'completed',
                  goal: 'Compare igniter prices',
                  model: 'gpt-4o-mini',
                  summary: 'Cheapest igniter: 19 USD',
                  childSessionId: '',
                  foreign: true
                }),
                fromSession
              ]
            : [fromSession]
        )
        await call('memory.events', { profile })
        await call('memory.entries', { profile })
        await call('memory.providers', { profile })
        await call('settings.get', { profile })
        await call('cron.list', { profile })
      }
      const costs = await call<Record<string, unknown>>('costs.summary', { profile: 'all', days: 3650 })
      expect(JSON.stringify(costs)).toContain('gpt-4o-mini')
      await call('subagents.list', { profile: 'all' })
      await call('memory.events', { profile: 'all' })
      await call('memory.health', { profile: 'all' })
      await call('gateway.state', {})
      await call('channels.status', {})
      await call('prices.get', {})
    } finally {
      await host.close()
    }
    const bad = records.filter((r) => /no such (column|table)|database is locked/i.test(JSON.stringify(r)))
    expect(bad).toEqual([])
    expect(snapshot(home)).toEqual(before)

    // the CLI's read commands, each a fresh process
    const env = { ...process.env, CADUCEUS_LOG_DIR: join(home, '..', 'cad-untouched-logs'), HERMES_HOME: '' }
    await Promise.all(
      [
        ['sessions', 'list', '--json'],
        ['sessions', 'show', '20260101_090000_aa01', '--json'],
        ['sessions', 'search', 'igniter', '--profile', 'work', '--json']
      ].map((args) => run(process.execPath, ['bin/caduceus.mjs', ...args, '--home', home], { cwd: repo, env }))
    )
    expect(snapshot(home)).toEqual(before)
  }, 60_000)
})
