/**
 * The page a user really gets (issue #22): the host's `sessions.list` first page (100 rows; and the 50 the Sessions
 * page reads again from the top when another program wrote: `headRefresh`), each sample taken
 * right after a second process committed an append — nothing read before that write may answer it; wall time, and
 * this process's CPU time over the same requests (on a shared, loaded box the wall p95 mostly measures the queue for
 * a core; the CPU time is what the request itself cost). A host that has been up a while is what users list from:
 * the samples come after `warmup` rounds of the same write-then-list (discarded), which is when V8 has compiled the
 * list's code — measured cold, the first ~20 requests of a fresh host (interpreted JS, 2–5× slower) made up the
 * whole p95 of a 100-round run; they are reported on their own (`warmup`: requests 2–51 of the host's life), as is
 * the very first page of a fresh host (`cold`: it builds the activity index, one pass over the home). Plus
 * upstream's own list on the same home (bench/upstream-list.py) for the side-by-side ratio.
 */
import { execFile, execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { spawnWriter } from '../src-main/store/test-fixtures/spawn-writer'
import { percentiles } from './percentiles'
import { SESSION_HEAD_ROWS, SESSION_PAGE_ROWS } from '../shared/contract'

export interface Percentiles {
  p50: number
  p95: number
}

export const upstreamDir = () => process.env.HERMES_UPSTREAM ?? '/work/upstream'
export const pythonBin = () => (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3')
/** Upstream's Python at hand (the side-by-side list and the v21 home need it). */
export const hasUpstream = () => existsSync(join(upstreamDir(), 'hermes_state.py'))

export const stateDbOf = (home: string, profile: string) =>
  profile === 'default' ? join(home, 'state.db') : join(home, 'profiles', profile, 'state.db')

/**
 * `writes`: who appends from another process before each sample — a Caduceus writer, upstream's own
 * `SessionDB.append_message` (bench/upstream-writer.py; a v21 home stays untouched by Caduceus), or nobody
 * (false: a home the bench must not change).
 */
export async function hostListFirstPage(
  home: string,
  profile: string,
  writes: boolean | 'upstream',
  rounds = 300,
  warmup = 50
): Promise<{
  wall: Percentiles
  cpu: Percentiles
  cold: number
  warmup: Percentiles
  afterDeepDelete: Percentiles | null
}> {
  return listRounds(home, profile, writes, rounds, warmup, false, SESSION_PAGE_ROWS)
}

/**
 * The flow the app runs: the host's watcher sees the foreign commit, catches the list's activity index up and
 * announces `sessions.changed`; the Sessions page re-reads the head of its list on that event
 * (src-renderer/stores/sessions.ts applySessionsChanged). Each sample is the `sessions.list` request made on the
 * event for the append just committed — its rows read from the file after that write, only the index's catch-up
 * done before it (by the watcher, off the request).
 */
export async function hostListOnChange(
  home: string,
  profile: string,
  writes: true | 'upstream',
  rounds = 300,
  warmup = 50,
  limit = SESSION_PAGE_ROWS
): Promise<{ wall: Percentiles; cpu: Percentiles }> {
  const { wall, cpu } = await listRounds(home, profile, writes, rounds, warmup, true, limit)
  return { wall, cpu }
}

async function listRounds(
  home: string,
  profile: string,
  writes: boolean | 'upstream',
  rounds: number,
  warmup: number,
  onEvent: boolean,
  limit: number
) {
  const host = await createHost({ home, headless: true, live: onEvent, log: createLogger() })
  const db = stateDbOf(home, profile)
  const session = `bench_list_${process.pid}`
  const child =
    writes === 'upstream'
      ? spawn(pythonBin(), [resolve(import.meta.dirname, 'upstream-writer.py'), db, session], {
          env: { ...process.env, HERMES_UPSTREAM: upstreamDir() },
          stdio: 'pipe'
        })
      : writes
        ? spawnWriter([db, session, 'serve'])
        : null
  const lines = child ? createInterface({ input: child.stdout })[Symbol.asyncIterator]() : null
  const next = async () => String((await lines!.next()).value)
  const list = () => host.dispatcher.invoke('sessions.list', { profile, limit })
  // sessions.changed events naming the writer's session, counted: a sample waits for the one after its append
  let announced = 0
  let wake: (() => void) | null = null
  const unsubscribe = host.bus.subscribe((e) => {
    if (e.event !== 'sessions.changed') return
    const p = e.payload as { profile: string; sessionIds: string[] }
    if (p.profile !== profile || !p.sessionIds.includes(session)) return
    announced++
    wake?.()
  })
  const announcedAfter = async (seen: number) => {
    const deadline = Date.now() + 30_000
    while (announced <= seen) {
      if (Date.now() > deadline) throw new Error('no sessions.changed event for the writer session')
      await new Promise<void>((r) => {
        wake = r
        setTimeout(r, 1000).unref()
      })
    }
  }
  try {
    if (child && (await next()) !== 'ready') throw new Error('writer failed to start')
    const t0 = performance.now()
    await list()
    const cold = performance.now() - t0
    const xs: number[] = []
    const cpu: number[] = []
    const early: number[] = []
    for (let i = -warmup; i < rounds; i++) {
      if (child) {
        const seen = announced
        child.stdin.write('append\n')
        await next()
        if (onEvent) await announcedAfter(seen)
      }
      const c = process.cpuUsage()
      const t = performance.now()
      const r = await list()
      const wall = performance.now() - t
      const used = process.cpuUsage(c)
      if (!r.ok) throw new Error(`sessions.list failed: ${r.error.message}`)
      if (i < 0) {
        early.push(wall)
        continue
      }
      xs.push(wall)
      cpu.push((used.user + used.system) / 1000)
    }
    // A Caduceus writer also deletes the home's oldest message, deep in the list: only the FTS row count says rows
    // went, and the first list after it reads every session's activity again (activity-index.ts).
    const deep: number[] = []
    if (child && writes === true && !onEvent)
      for (let i = 0; i < 10; i++) {
        child.stdin.write('delete-oldest\n')
        await next()
        const t = performance.now()
        await list()
        deep.push(performance.now() - t)
      }
    return {
      wall: percentiles(xs, 3),
      cpu: percentiles(cpu, 3),
      cold: Number(cold.toFixed(1)),
      warmup: percentiles(early, 3),
      afterDeepDelete: deep.length ? percentiles(deep, 3) : null
    }
  } finally {
    unsubscribe()
    if (child) {
      const exited = new Promise((r) => child.once('exit', r))
      child.stdin.end()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))])
      clearTimeout(timer)
      child.kill()
    }
    await host.close()
  }
}

type ListResult = Awaited<ReturnType<typeof hostListFirstPage>> & {
  /** The same home listed as the app lists it after a foreign write (hostListOnChange); null when nobody writes. */
  onChange: { wall: Percentiles; cpu: Percentiles } | null
  /**
   * What the Sessions page really asks for on that event: the top SESSION_HEAD_ROWS rows again (its loaded rows
   * further down are kept; src-renderer/stores/sessions.ts refreshOnce). Null when nobody writes.
   */
  headRefresh: { wall: Percentiles; cpu: Percentiles } | null
}

/**
 * hostListFirstPage in a process of its own, as the host runs: the bench's own process has just generated a home of
 * 500k messages, and its big heap's collection work (incremental marking between the samples, concurrent marking on
 * the other core) would be measured as the list's.
 */
export function hostListFirstPageApart(
  home: string,
  profile: string,
  writes: boolean | 'upstream'
): Promise<ListResult> {
  return new Promise((ok, fail) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), home, profile, String(writes)],
      { cwd: resolve(import.meta.dirname, '..'), timeout: 600_000, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) return fail(new Error(`list bench failed: ${err.message} ${stderr.slice(-400)}`))
        ok(JSON.parse(stdout.trim().split('\n').pop()!) as ListResult)
      }
    )
  )
}

/** Upstream's `list_sessions_rich(order_by_last_active=True)` on the same file, or null without Python/upstream. */
export function upstreamListFirstPage(dbPath: string): (Percentiles & { error?: string }) | null {
  const upstream = upstreamDir()
  const python = pythonBin()
  if (!existsSync(join(upstream, 'hermes_state.py'))) return null
  try {
    const out = execFileSync(python, [resolve(import.meta.dirname, 'upstream-list.py'), dbPath, '30'], {
      encoding: 'utf8',
      env: { ...process.env, HERMES_UPSTREAM: upstream },
      timeout: 600_000
    })
    const r = JSON.parse(out.trim().split('\n').pop()!) as Percentiles & { error?: string }
    return r.error ? { p50: -1, p95: -1, error: r.error } : r
  } catch (err) {
    return { p50: -1, p95: -1, error: (err as Error).message.slice(0, 200) }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [home, profile, writes] = process.argv.slice(2)
  if (!home || !profile) throw new Error('usage: list-after-write.ts HOME PROFILE true|false|upstream')
  const who = writes === 'upstream' ? 'upstream' : writes === 'true'
  const result: ListResult = { ...(await hostListFirstPage(home, profile, who)), onChange: null, headRefresh: null }
  if (who !== false) {
    result.onChange = await hostListOnChange(home, profile, who)
    result.headRefresh = await hostListOnChange(home, profile, who, 300, 50, SESSION_HEAD_ROWS)
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
}
