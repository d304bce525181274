// Upstream Hermes's own writer (its SessionDB, run by the system Python in a child process) changes a home while a
// live Caduceus host serves it. Cross-process is the point: the list must reorder by last activity as upstream's
// list_sessions_rich does, and short CJK/emoji search must find every session upstream wrote and none it deleted,
// with the short-text index catching up on another program's inserts and deletes.
// Needs the upstream checkout (HERMES_UPSTREAM, default /work/upstream) and /usr/bin/python3; skipped without them.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const PY = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const runnable = existsSync(PY) && existsSync(join(UPSTREAM, 'hermes_state.py'))

/**
 * One upstream writer process for the file (importing upstream's module is the slow part): each request line
 * {path, ops, queries} applies ops with upstream's SessionDB on that home, then answers with upstream's own reads —
 * its list (order_by_last_active) and search_messages per query. Ops: [verb, ...args], verbs create / append / end /
 * delete (delete_session).
 */
const WRITER = `
import json, os, sys, tempfile
os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="up-home-")
sys.path.insert(0, sys.argv[1])
from pathlib import Path
import hermes_state as hs
dbs = {}
for line in sys.stdin:
    req = json.loads(line)
    db = dbs.get(req["path"]) or dbs.setdefault(req["path"], hs.SessionDB(Path(req["path"])))
    for op, *a in req["ops"]:
        if op == "create": db.create_session(a[0], "cli")
        elif op == "append": db.append_message(a[0], a[1], a[2], timestamp=a[3] if len(a) > 3 else None)
        elif op == "end": db.end_session(a[0], "cli_close")
        elif op == "delete": db.delete_session(a[0])
    rows = db.list_sessions_rich(order_by_last_active=True, limit=1000)
    print(json.dumps({"list": [r["id"] for r in rows], "last_active": {r["id"]: r["last_active"] for r in rows},
        "search": {q: sorted({h["session_id"] for h in db.search_messages(q, limit=1000)}) for q in req["queries"]}}), flush=True)
`
type Answer = { list: string[]; last_active: Record<string, number>; search: Record<string, string[]> }
let writer: ChildProcessWithoutNullStreams | undefined
let lines: AsyncIterator<string>
const upstream = async (path: string, ops: unknown[][], queries: string[] = []): Promise<Answer> => {
  if (!writer) {
    writer = spawn(PY, ['-u', '-c', WRITER, UPSTREAM])
    lines = createInterface({ input: writer.stdout })[Symbol.asyncIterator]()
  }
  writer.stdin.write(JSON.stringify({ path, ops, queries }) + '\n')
  const next = await lines.next()
  if (next.done) throw new Error('upstream writer exited')
  return JSON.parse(next.value) as Answer
}
afterAll(() => writer?.stdin.end())

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const newHome = () => {
  const d = mkdtempSync(join(tmpdir(), 'cad-up-live-'))
  dirs.push(d)
  return d
}
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

describe.skipIf(!runnable)('upstream writing while a live host serves the home', () => {
  it("a session upstream continues rises to the top, in upstream's own list order (last message time)", async () => {
    const home = newHome()
    const path = join(home, 'state.db')
    const t = 1_700_000_000
    await upstream(path, [
      ['create', 'old'],
      ['append', 'old', 'user', 'first words', t],
      ['create', 'mid'],
      ['append', 'mid', 'user', 'middle words', t + 100],
      ['create', 'newer'],
      ['append', 'newer', 'user', 'newer words', t + 200],
      ['create', 'quiet'] // no messages yet: upstream orders it by its start (now)
    ])
    const host = await live(home)
    try {
      const ids = async () =>
        ((await call(host, 'sessions.list', { profile: 'default' })).items as Rec[]).map((s) => s.id)
      expect(await ids()).toEqual(['quiet', 'newer', 'mid', 'old'])
      // upstream continues `old` now, and gives `quiet` its first message dated before every other one
      const seen = announced(host, ['old', 'quiet'])
      const want = await upstream(path, [
        ['append', 'old', 'user', 'back again'],
        ['append', 'quiet', 'user', 'a late import of an old line', t - 500]
      ])
      await seen
      expect(want.list).toEqual(['old', 'newer', 'mid', 'quiet'])
      const items = (await call(host, 'sessions.list', { profile: 'default' })).items as Rec[]
      expect(items.map((s) => s.id)).toEqual(want.list)
      expect(items[0]!.lastActiveAt).toBeCloseTo(want.last_active.old!, 3)
      expect(items[3]!.lastActiveAt).toBe(t - 500)
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
    await upstream(path, first)
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
      let r = await sessions('東京')
      expect(r.ids).toEqual(ids(odd(N)))
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
      const want = await upstream(path, more, ['東京'])
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
