// Upstream Hermes's own writes reach a home from another process while a live Caduceus host serves it.
// Cross-process is the point: the list must reorder by last activity as upstream's list_sessions_rich does, and
// short CJK/emoji search must find every session upstream wrote and none it deleted, with the short-text index
// catching up on another program's inserts and deletes.
// The writes are upstream's, recorded: scripts/golden/live_writer.py ran each step below with upstream's SessionDB
// and recorded every SQL call it made (text, parameters, commits) plus upstream's own list and search answers
// (test/fixtures/upstream/live-writer/). A child process replays a step's calls with the system Python's sqlite3
// module (its own SQLite build, as upstream's would be), so this runs without the upstream checkout.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const PY = '/usr/bin/python3'
const TRACE = join(import.meta.dirname, 'fixtures/upstream/live-writer/trace.json')
const REPLAY = join(import.meta.dirname, 'helpers/replay_trace.py')

/** Upstream's own answers after a step: its list (order_by_last_active) and search_messages session ids. */
type Answer = { list: string[]; last_active: Record<string, number>; search: Record<string, string[]> }
type Step = { ops: unknown[][]; calls: unknown[]; answer: Answer }
const golden = JSON.parse(readFileSync(TRACE, 'utf8')) as { scenarios: Record<string, { steps: Step[] }> }

let writer: ChildProcessWithoutNullStreams | undefined
let lines: AsyncIterator<string>
/**
 * Upstream applies `ops` (step `step` of `scenario`; ops are [verb, ...args], verbs create / append / end / delete as
 * in the golden script) to the home at `path`: resolves once every recorded call of that step ran in the child
 * process, with upstream's answers recorded after it. One child for the file keeps each home's connection open
 * across steps, as upstream's SessionDB keeps its own.
 */
const upstream = async (path: string, scenario: string, step: number, ops: unknown[][]): Promise<Answer> => {
  const recorded = golden.scenarios[scenario]!.steps[step]!
  expect(recorded.ops, 'the golden trace was recorded for these operations').toEqual(ops)
  if (!writer) {
    writer = spawn(PY, ['-u', REPLAY, TRACE])
    lines = createInterface({ input: writer.stdout })[Symbol.asyncIterator]()
  }
  writer.stdin.write(JSON.stringify({ path, scenario, step }) + '\n')
  const next = await lines.next()
  if (next.done) throw new Error('upstream replay exited')
  const reply = JSON.parse(next.value) as { calls?: number; error?: string }
  if (reply.error !== undefined) throw new Error(reply.error)
  expect(reply.calls).toBe(recorded.calls.length)
  return recorded.answer
}
// The replay ends once its stdin does: waited for, so it is not still closing its homes while the next file runs on
// this worker (one that hangs is killed).
afterAll(async () => {
  const child = writer
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
  const code = await new Promise<number | string | null>((done) => {
    child.once('exit', (c, signal) => done(c ?? signal))
    child.stdin.end()
  })
  clearTimeout(kill)
  expect(code).toBe(0)
})

afterAll(cleanupTempDirs)
const newHome = () => tempDir('cad-up-live-')
const call = async (host: Host, name: string, input: unknown): Promise<Rec> => {
  const r = await host.dispatcher.invoke(name as never, input as never)
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.output as Rec
}
/** Resolves once the host announced a change touching every one of `ids` (its watcher saw the other program). */
const announced = (host: Host, ids: string[]) =>
  new Promise<void>((resolve) => {
    const seen = new Set<string>()
    const off = host.bus.subscribe((e) => {
      const ev = e as { event: string; payload: { sessionIds?: string[] } }
      if (ev.event !== 'sessions.changed') return
      for (const id of ev.payload.sessionIds ?? []) seen.add(id)
      if (ids.every((id) => seen.has(id))) {
        off()
        resolve()
      }
    })
  })
const live = (home: string) =>
  createHost({ home, headless: true, live: true, validateOutput: true, log: createLogger() })

describe.skipIf(!existsSync(PY))('upstream writing while a live host serves the home', () => {
  it("a session upstream continues rises to the top, in upstream's own list order (last message time)", async () => {
    const home = newHome()
    const path = join(home, 'state.db')
    const t = 1_700_000_000
    const start = await upstream(path, 'reorder', 0, [
      ['create', 'old'],
      ['append', 'old', 'user', 'first words', t],
      ['create', 'mid'],
      ['append', 'mid', 'user', 'middle words', t + 100],
      ['create', 'newer'],
      ['append', 'newer', 'user', 'newer words', t + 200],
      ['create', 'quiet'] // no messages yet: upstream orders it by its start (the recording's now)
    ])
    const host = await live(home)
    try {
      const ids = async () =>
        ((await call(host, 'sessions.list', { profile: 'default' })).items as Rec[]).map((s) => s.id)
      expect(start.list).toEqual(['quiet', 'newer', 'mid', 'old'])
      expect(await ids()).toEqual(start.list)
      // upstream continues `old` now, and gives `quiet` its first message dated before every other one
      const seen = announced(host, ['old', 'quiet'])
      const want = await upstream(path, 'reorder', 1, [
        ['append', 'old', 'user', 'back again'], // dated now by upstream
        ['append', 'quiet', 'user', 'a late import of an old line', t - 500]
      ])
      await seen
      expect(want.list).toEqual(['old', 'newer', 'mid', 'quiet'])
      const items = (await call(host, 'sessions.list', { profile: 'default' })).items as Rec[]
      expect(items.map((s) => s.id)).toEqual(want.list)
      expect(items[0]!.lastActiveAt).toBe(want.last_active.old)
      expect(items[3]!.lastActiveAt).toBe(t - 500)
    } finally {
      await host.close()
    }
  })

  it("a transcript upstream rewrites moves back down, and a cleared one goes by its start, in upstream's order", async () => {
    const home = newHome()
    const path = join(home, 'state.db')
    const t = 1_700_000_000
    const start = await upstream(path, 'rewrite', 0, [
      ['create', 'a'],
      ['append', 'a', 'user', 'question one', t + 10],
      ['append', 'a', 'assistant', 'answer one', t + 20],
      ['append', 'a', 'user', 'question two', t + 30],
      ['append', 'a', 'assistant', 'answer two', t + 40],
      ['create', 'b'],
      ['append', 'b', 'user', 'in between', t + 25]
    ])
    const host = await live(home)
    try {
      const list = async () =>
        ((await call(host, 'sessions.list', { profile: 'default' })).items as Rec[]).map((s) => [s.id, s.lastActiveAt])
      const expected = (a: Answer) => a.list.map((id) => [id, a.last_active[id]])
      expect(start.list).toEqual(['a', 'b'])
      expect(await list()).toEqual(expected(start))
      // /undo: upstream rewrites a without its last exchange, keeping the kept rows' own times
      let seen = announced(host, ['a'])
      const undone = await upstream(path, 'rewrite', 1, [['undo', 'a']])
      await seen
      expect(undone.list).toEqual(['b', 'a'])
      expect(await list()).toEqual(expected(undone))
      // every message gone: a is ordered by its start again (the recording's now, after b's last message)
      seen = announced(host, ['a'])
      const cleared = await upstream(path, 'rewrite', 2, [['clear', 'a']])
      await seen
      expect(cleared.list).toEqual(['a', 'b'])
      expect(await list()).toEqual(expected(cleared))
    } finally {
      await host.close()
    }
  })

  it("a session upstream clears deep in the list moves by its start, and one it deletes goes, in upstream's order", async () => {
    const home = newHome()
    const path = join(home, 'state.db')
    const t = 1_700_000_000
    const ops: unknown[][] = []
    for (let i = 0; i < 6; i++)
      ops.push(
        ['create', `d${i}`],
        ['append', `d${i}`, 'user', `words ${i}`, t + 10 * i],
        ['append', `d${i}`, 'assistant', `reply ${i}`, t + 10 * i + 5]
      )
    const start = await upstream(path, 'deep-clear', 0, ops)
    const host = await live(home)
    try {
      const list = async () =>
        ((await call(host, 'sessions.list', { profile: 'default' })).items as Rec[]).map((s) => [s.id, s.lastActiveAt])
      const expected = (a: Answer) => a.list.map((id) => [id, a.last_active[id]])
      expect(await list()).toEqual(expected(start))
      // d1's messages are neither the newest rows nor at the top, and nothing is written after them: only the count
      // of what is left says they went. With none left, upstream orders d1 by its start (the recording's now).
      let seen = announced(host, ['d1'])
      const cleared = await upstream(path, 'deep-clear', 1, [['clear', 'd1']])
      await seen
      expect(cleared.list).toEqual(['d1', 'd5', 'd4', 'd3', 'd2', 'd0'])
      expect(await list()).toEqual(expected(cleared))
      seen = announced(host, ['d3'])
      const deleted = await upstream(path, 'deep-clear', 2, [['delete', 'd3']])
      await seen
      expect(await list()).toEqual(expected(deleted))
    } finally {
      await host.close()
    }
  })

  it('short CJK and emoji search finds every session upstream wrote and none it deleted, before and after the index exists', async () => {
    const home = newHome()
    const path = join(home, 'state.db')
    const N = 24
    const first: unknown[][] = []
    for (let i = 0; i < N; i++)
      first.push(['create', `s${i}`], ['append', `s${i}`, 'user', i % 2 ? `会議は東京で ${i}` : `launch 🚀 ${i}`])
    first.push(['create', 'plain'], ['append', 'plain', 'user', 'nothing short here'])
    const before = await upstream(path, 'short-search', 0, first)
    const even = (n: number) => Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 0)
    const odd = (n: number) => Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 1)
    const sessions = async (q: string) => {
      const r = await call(host, 'sessions.search', { profile: 'default', query: q, limit: 200 })
      return {
        ids: [...new Set((r.hits as Rec[]).map((h) => h.sessionId as string))].sort(),
        fallback: r.fallback ?? ''
      }
    }
    const ids = (xs: number[]) => xs.map((i) => `s${i}`).sort()
    const host = await live(home)
    try {
      // a home Caduceus never wrote: a complete scan, every session
      expect(before.search['東京']).toEqual(ids(odd(N))) // upstream's own answer
      let r = await sessions('東京')
      expect(r.ids).toEqual(before.search['東京'])
      expect(r.fallback).toContain('complete scan')
      expect((await sessions('🚀')).ids).toEqual(ids(even(N)))

      // Caduceus writes once (an import through the API): its short-text index exists from then on
      await call(host, 'sessions.import', {
        profile: 'default',
        content: JSON.stringify({
          id: 'mine',
          source: 'cli',
          started_at: 1,
          messages: [{ role: 'user', content: 'x' }]
        })
      })
      expect((await sessions('東京')).fallback).toContain('short-text index')

      // upstream adds sessions and deletes others while the host watches: caught up, nothing missed or stale
      const more: unknown[][] = [
        ['delete', 's1'],
        ['delete', 's2']
      ]
      for (let i = N; i < N + 10; i++)
        more.push(['create', `s${i}`], ['append', `s${i}`, 'user', i % 2 ? `東京タワー ${i}` : `🚀🚀 ${i}`])
      const seen = announced(host, [`s${N}`, `s${N + 9}`])
      const want = await upstream(path, 'short-search', 1, more)
      await seen
      const expectOdd = ids(odd(N + 10).filter((i) => i !== 1))
      const expectEven = ids(even(N + 10).filter((i) => i !== 2))
      expect(want.search['東京']).toEqual(expectOdd) // upstream's own short-CJK answer agrees
      r = await sessions('東京')
      expect(r.ids).toEqual(expectOdd)
      expect(r.fallback).toContain('short-text index')
      expect((await sessions('🚀')).ids).toEqual(expectEven)
    } finally {
      await host.close()
    }
  })
})
