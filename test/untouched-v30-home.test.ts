// Issue 21, v30: a two-profile home in the shape hermes-spec §1.3 describes (built by the store's test fixture, then
// filled with the SQL a v30 upstream issues: system_prompts by hash, per-route and per-day usage). Every read the UI
// makes answers with that content, and reading changes no byte of any file under the root.
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { LogRecord } from '@shared/contract/log'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { makeHome, upstream } from '../src-main/store/test-fixtures/homes'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function v30Home(): string {
  const home = mkdtempSync(join(tmpdir(), 'cad-untouched-v30-'))
  dirs.push(home)
  for (const [dir, sid, text] of [
    [home, 'd1', 'the boiler pressure is low'],
    [join(home, 'profiles', 'work'), 'w1', 'draft the budget memo']
  ] as const) {
    const db = new Database(makeHome(dir, 30))
    const up = upstream(db, 30)
    up.createSession(sid)
    const prompt = `You are upstream in ${sid}.`
    const hash = createHash('sha256').update(prompt, 'utf8').digest('hex')
    db.prepare('INSERT INTO system_prompts(hash, prompt) VALUES (?, ?)').run(hash, prompt)
    db.prepare('UPDATE sessions SET system_prompt_hash = ?, title = ? WHERE id = ?').run(hash, `chat ${sid}`, sid)
    up.append(sid, 'user', text)
    up.append(sid, 'assistant', 'noted')
    up.usage(sid, 'gpt-4o', 1200)
    db.close()
  }
  return home
}

function files(home: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else out.set(relative(home, p), createHash('sha256').update(readFileSync(p)).digest('hex'))
    }
  }
  walk(home)
  return out
}

describe('an existing v30 home that only upstream wrote', () => {
  it('answers every read request with its content; no byte changes', async () => {
    const home = v30Home()
    const before = files(home)
    const records: LogRecord[] = []
    const log = createLogger()
    log.attach((r) => records.push(r))
    const host = await createHost({ home, headless: true, live: true, validateOutput: true, log })
    const call = async <T>(name: string, input: unknown): Promise<T> => {
      const r = await host.dispatcher.invoke(name as never, input as never)
      if (!r.ok) throw new Error(JSON.stringify(r))
      return (r as unknown as { output: T }).output
    }
    try {
      for (const [profile, sid] of [
        ['default', 'd1'],
        ['work', 'w1']
      ] as const) {
        const detail = await call<{ systemPrompt?: string | null; usage: Array<{ model: string }> }>('sessions.get', {
          profile,
          sessionId: sid
        })
        expect(detail.systemPrompt).toBe(`You are upstream in ${sid}.`)
        expect(detail.usage.map((u) => u.model)).toEqual(['gpt-4o'])
        expect((await call<{ items: unknown[] }>('sessions.messages', { profile, sessionId: sid })).items).toHaveLength(
          2
        )
        expect(JSON.stringify(await call('costs.session', { profile, sessionId: sid }))).toContain('gpt-4o')
        // per-day usage comes from upstream's own session_daily_usage
        const summary = await call<Record<string, unknown>>('costs.summary', { profile, days: 30 })
        expect(JSON.stringify(summary)).toContain('1200')
        for (const [name, input] of [
          ['subagents.list', { profile }],
          ['memory.events', { profile }],
          ['memory.entries', { profile }],
          ['memory.providers', { profile }],
          ['settings.get', { profile }],
          ['cron.list', { profile }]
        ] as const)
          await call(name, input)
      }
      const hits = await call<{ hits: Array<{ sessionId: string }> }>('sessions.search', {
        profile: 'all',
        query: 'budget'
      })
      expect(hits.hits.map((h) => h.sessionId)).toEqual(['w1'])
      await call('costs.summary', { profile: 'all' })
      await call('memory.health', { profile: 'all' })
    } finally {
      await host.close()
    }
    expect(records.filter((r) => /no such (column|table)|database is locked/i.test(r.message))).toEqual([])
    expect(files(home)).toEqual(before)
  }, 30_000)
})
