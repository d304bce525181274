// Upstream's own maintenance (`hermes sessions prune` + `SessionDB.vacuum()`) on a home Caduceus wrote, golden data
// from scripts/golden/maintenance.py: upstream deletes sessions without knowing Caduceus's per-day usage rows or
// short-text index, so what Caduceus shows afterwards must still count and find only the sessions upstream kept.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'

const gold = resolve(import.meta.dirname, 'fixtures/upstream/maintenance')
const view = JSON.parse(readFileSync(join(gold, 'upstream-view.json'), 'utf8')) as {
  sessions: string[]
  daily_rows_left: number
}
let dir: string
let host: Host
const ask = async (method: string, input: unknown) => {
  const r = (await host.dispatcher.invoke(method as never, input as never)) as { ok: boolean; output: any } // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(r.ok).toBe(true)
  return r.output
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cad-up-maint-'))
  copyFileSync(join(gold, 'pruned.db'), join(dir, 'state.db'))
  host = await createHost({ home: dir, headless: true, live: false, validateOutput: true, log: createLogger() })
})
afterAll(async () => {
  await host.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a Caduceus home after upstream pruned and vacuumed it', () => {
  it('lists and finds (2-character CJK, emoji) only the sessions upstream kept', async () => {
    expect(view.daily_rows_left).toBeGreaterThan(view.sessions.length) // the pruned sessions' day rows are left
    const list = await ask('sessions.list', { profile: 'default' })
    expect(list.items.map((s: { id: string }) => s.id)).toEqual(view.sessions)
    for (const query of ['天气', '🚀']) {
      const found = await ask('sessions.search', { profile: 'default', query })
      expect(found.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(view.sessions)
    }
  })

  it("counts tokens per day of the kept sessions only, not the pruned sessions' leftover day rows", async () => {
    const sum = await ask('costs.summary', { profile: 'default', days: 3650 })
    expect(sum.total.usd).toBe(1)
    expect(sum.tokensByDay).toEqual([
      expect.objectContaining({ day: '2026-01-02', tokens: expect.objectContaining({ input: 100, output: 10 }) })
    ])
  })

  it("a session imported under a pruned one's id does not inherit that session's day rows", async () => {
    const back = { id: 'old-a', source: 'cli', started_at: 1577880000, input_tokens: 5, messages: [] }
    expect(await ask('sessions.import', { profile: 'default', content: JSON.stringify(back) })).toMatchObject({
      imported: 1
    })
    const sum = await ask('costs.summary', { profile: 'default', days: 3650 })
    expect(sum.tokensByDay).toEqual([
      expect.objectContaining({ day: '2026-01-02', tokens: expect.objectContaining({ input: 100, output: 10 }) })
    ])
  })
})

describe('a retained subagent after upstream deleted its parent (and with it the child session)', () => {
  it('is no longer offered for follow-ups', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cad-up-maint-deleg-'))
    copyFileSync(join(gold, 'delegated.db'), join(home, 'state.db'))
    const h = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    try {
      const list = await h.dispatcher.invoke('subagents.list', { profile: 'default' })
      expect(list).toMatchObject({ ok: true, output: { items: [] } })
      const all = await h.dispatcher.invoke('subagents.list', { profile: 'default', includeTombstoned: true })
      expect(all).toMatchObject({ ok: true, output: { items: [{ state: 'tombstoned' }] } })
    } finally {
      await h.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
