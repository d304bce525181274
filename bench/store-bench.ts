/**
 * Store benchmark: session-list first page, FTS search, cross-process write→event latency and idle CPU
 * of a running watcher. Without `home` it generates 10,000 sessions / 500,000 messages in a temp home.
 * Wired into `npm run bench` by bench/run.ts.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import Database from 'better-sqlite3'
import { SessionStore, SessionWatcher, StoreRegistry } from '../src-main/store'
import { percentiles } from './percentiles'
import { measureHotPaths, type HotPathResult } from './hot-path-bench'
import { generateBulk } from '../src-main/store/demo'
import { spawnWriter } from '../src-main/store/test-fixtures/spawn-writer'
import { sqliteOf } from '../src-main/store/session-store'
import { txDb } from '../src-main/store/write-tx'
import { shortIndexStep } from '../src-main/store/short-index'
import { execFileSync } from 'node:child_process'
import {
  hostListFirstPageApart,
  hasUpstream,
  pythonBin,
  stateDbOf,
  upstreamDir,
  upstreamListFirstPage
} from './list-after-write'

export interface Percentiles {
  p50: number
  p95: number
}
export interface StoreBenchResult {
  /**
   * The host's `sessions.list` first page (100) as the app gets it after another process appended (issue #22): the
   * request the Sessions page makes on the `sessions.changed` event for that append (list-after-write.ts
   * hostListOnChange). Only the list index's catch-up ran before it, on the host's watcher; the rows are read after the write.
   */
  listFirstPageMs: Percentiles
  /** This process's CPU time over those same requests (the wall p95 above also counts waiting for a core). */
  listFirstPageCpuMs: Percentiles
  /**
   * What the Sessions page really reads on that event: the top 50 rows again (SESSION_HEAD_ROWS; the rows it loaded
   * below them are kept), in the same flow.
   */
  listHeadRefreshMs: Percentiles | null
  /**
   * The same request made before the watcher saw the write (a request racing the event): it catches the index up
   * itself. No watcher running; each sample right after the append.
   */
  listBeforeWatcherMs: Percentiles
  listBeforeWatcherCpuMs: Percentiles
  /** The first page of a freshly started host (it builds the activity index: one pass over the home), one sample. */
  listColdMs: number
  /** Requests 2–51 of that host's life (V8 still compiling the list's code), each after a write too; no target. */
  listWarmupMs: Percentiles
  /**
   * The first page right after another process deleted the home's oldest message (deep in the list, not the newest
   * rows): the host reads every session's activity again (activity-index.ts). 10 samples; null on a home the bench
   * may not write. No target: once per deleting commit.
   */
  listAfterDeepDeleteMs: Percentiles | null
  /** The same page read straight from the store, no write in between, for reference. */
  storeListFirstPageMs: Percentiles
  /** Upstream's `list_sessions_rich(order_by_last_active=True)` on the same file, when upstream is at hand. */
  upstreamListMs: (Percentiles & { error?: string }) | null
  /** upstream p95 / ours p95 (target ≥ 25). */
  listRatioToUpstream: number | null
  /**
   * The same on an untouched upstream (v21) home of the same size written by upstream's own code
   * (bench/upstream-home.py), each sample right after upstream's `append_message` in another process.
   * null without upstream's Python at hand, or when a given home is measured.
   */
  v21: {
    listFirstPageMs: Percentiles
    listFirstPageCpuMs: Percentiles
    listHeadRefreshMs: Percentiles | null
    listBeforeWatcherMs: Percentiles
    listBeforeWatcherCpuMs: Percentiles
    listColdMs: number
    listWarmupMs: Percentiles
    upstreamListMs: (Percentiles & { error?: string }) | null
    listRatioToUpstream: number | null
    /** Complete scans: this home has no Caduceus index (target ≤ 500 ms). */
    ftsCjkShortScanMs: Percentiles
    ftsEmojiScanMs: Percentiles
    ftsScanAnsweredBy: string
    /** As `hotPaths`, on this home (measured last: until then Caduceus never wrote it). */
    hotPaths: HotPathResult
    sessions: number
    messages: number
  } | null
  /**
   * The same list once every session carries a 22 KB system prompt inline — the size of upstream's assembled prompt
   * on a fresh home (its AIAgent._build_system_prompt at 9a75ff0). An older upstream (before schema v25) stores it
   * whole in `sessions.system_prompt`, ahead of the columns a list shows, so each row's overflow pages are walked (~6
   * page reads a row, all again after every foreign commit); v25+ moves it to `system_prompts` and leaves the column
   * NULL (the generated homes above). No target. Upstream's list beside it is measured as everywhere here: warm, with
   * no write between its samples (favouring it).
   */
  withPrompts: {
    listFirstPageMs: Percentiles
    listHeadRefreshMs: Percentiles | null
    upstreamListMs: (Percentiles & { error?: string }) | null
  } | null
  ftsMs: Percentiles
  /** CJK (3 characters, trigram index) and a substring inside words ("ploy" ⊂ deploy), same target as ftsMs. */
  ftsCjkMs: Percentiles
  ftsSubstringMs: Percentiles
  /**
   * A 2-character CJK query and an emoji: Caduceus's short-text index where it is current (target ≤ 30 ms; the
   * generated home), else complete scans (target ≤ 500 ms on a home Caduceus never wrote: `v21.*Scan*`).
   */
  ftsCjkShortMs: Percentiles
  ftsEmojiMs: Percentiles
  /** How the short queries were answered (the result's `fallback` line). */
  ftsShortAnsweredBy: string
  /** Commit in a second process → watcher callback in this one. -1 when a given home is left untouched. */
  writeToEventMs: Percentiles
  /**
   * CPU on the host's thread (hot-path-bench.ts): the watcher's check after one foreign commit (the sessions the
   * WAL's new frames wrote, else every one: how many checks took which way is counted), a message write and a
   * conversation read. null when a given home is left untouched.
   */
  hotPaths: HotPathResult | null
  idleCpuPercent: number
  sessions: number
  messages: number
}
export interface StoreBenchOptions {
  home?: string
  profile?: string
  query?: string
  /** Measure write→event on a given home too (appends to a `bench_*` session there). Default false. */
  allowWrites?: boolean
  sessions?: number
  messagesPerSession?: number
  idleSeconds?: number
  /** Skip the untouched-v21 list case (it generates a second home through upstream's Python: minutes). */
  skipV21?: boolean
  log?: (line: string) => void
}

const pct = (xs: number[]): Percentiles => percentiles(xs, 3)
const round = (n: number) => Math.round(n * 1000) / 1000
const time = (fn: () => unknown, runs: number) =>
  Array.from({ length: runs }, () => {
    const t = performance.now()
    fn()
    return performance.now() - t
  })

export async function runStoreBench(opts: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const log = opts.log ?? (() => {})
  // Measuring a given home must not create one (opening a store would make an empty state.db there).
  if (opts.home && !existsSync(opts.home)) throw new Error(`No such home: ${opts.home}`)
  const temp = opts.home ? null : mkdtempSync(join(tmpdir(), 'cad-bench-'))
  const registry = new StoreRegistry(opts.home ?? temp!)
  const store = registry.get(opts.profile ?? 'default')
  let watcher: SessionWatcher | null = null
  try {
    if (temp) {
      const t = performance.now()
      generateBulk(store, { sessions: opts.sessions ?? 10_000, messagesPerSession: opts.messagesPerSession ?? 50 })
      sqliteOf(store).exec('ANALYZE')
      // The raw bulk insert bypassed Caduceus's writes: one Caduceus write with no time budget brings its
      // short-text index current (normal writes do a slice each).
      await store.write((tx) => shortIndexStep(txDb(tx), store.shape, { budgetMs: Number.POSITIVE_INFINITY }))
      log(`generated in ${Math.round(performance.now() - t)} ms`)
      settle(stateDbOf(temp, 'default'))
    }
    const sessions = (sqliteOf(store).prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n
    const messages = (sqliteOf(store).prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n

    store.listSessions({ limit: 100 }) // warm the page cache once, as a running app would be
    // Enough samples that p95 is not just the 2nd-3rd worst call (this machine is shared and loaded).
    const storeListFirstPageMs = pct(time(() => store.listSessions({ limit: 100 }), 200))
    const home = opts.home ?? temp!
    const profile = opts.profile ?? 'default'
    const listed = await listOnCopy(home, profile, temp !== null || opts.allowWrites === true)
    const { cold: listColdMs, warmup: listWarmupMs, afterDeepDelete: listAfterDeepDeleteMs } = listed
    const { listFirstPageMs, listFirstPageCpuMs, listHeadRefreshMs, listBeforeWatcherMs, listBeforeWatcherCpuMs } =
      pageTimes(listed)
    const upstreamListMs = upstreamListFirstPage(stateDbOf(home, profile))
    const listRatioToUpstream =
      upstreamListMs && upstreamListMs.p95 > 0 ? round(upstreamListMs.p95 / listFirstPageMs.p95) : null
    log(
      `list: host on change ${JSON.stringify(listFirstPageMs)} head refresh (50) ${JSON.stringify(listHeadRefreshMs)} cpu ${JSON.stringify(listFirstPageCpuMs)}; before the watcher ${JSON.stringify(listBeforeWatcherMs)} cpu ${JSON.stringify(listBeforeWatcherCpuMs)}; cold ${listColdMs} ms warm-up ${JSON.stringify(listWarmupMs)} upstream ${JSON.stringify(upstreamListMs)}`
    )
    const v21 = temp && hasUpstream() && !opts.skipV21 ? await measureV21(opts, log) : null
    const query = opts.query ?? 'deploy'
    store.search({ query })
    const ftsMs = pct(time(() => store.search({ query, limit: 50 }), 60))
    const timed = (q: string) => {
      store.search({ query: q })
      return pct(time(() => store.search({ query: q, limit: 50 }), 60))
    }
    const ftsCjkMs = timed('数据库')
    const ftsSubstringMs = timed('ploy')
    const ftsCjkShortMs = timed('東京')
    const ftsEmojiMs = timed('🚀')
    const ftsShortAnsweredBy = store.searchFull({ query: '東京', limit: 50 }).fallback ?? ''
    log(`short: 東京 ${JSON.stringify(ftsCjkShortMs)} 🚀 ${JSON.stringify(ftsEmojiMs)} (${ftsShortAnsweredBy})`)

    const events: Array<{ at: number; ids: string[] }> = []
    watcher = new SessionWatcher(store, (e) =>
      events.push({ at: performance.timeOrigin + performance.now(), ids: e.sessionIds })
    ).start()
    const writeToEventMs = temp || opts.allowWrites ? await measureWriteToEvent(store, events) : { p50: -1, p95: -1 }
    const hotPaths = temp || opts.allowWrites ? await measureHotPaths(store) : null
    if (hotPaths) log(`hot paths: ${JSON.stringify(hotPaths)}`)

    // Idle: watcher running, nobody writing (after the writer's exit/checkpoint has been absorbed).
    await new Promise((r) => setTimeout(r, 2000))
    const before = process.cpuUsage()
    const idleMs = (opts.idleSeconds ?? 10) * 1000
    const t0 = performance.now()
    await new Promise((r) => setTimeout(r, idleMs))
    const used = process.cpuUsage(before)
    const idleCpuPercent = round(((used.user + used.system) / 1000 / (performance.now() - t0)) * 100)
    watcher.stop()
    const withPrompts = temp ? await measureWithPrompts(store, temp, log) : null
    return {
      listFirstPageMs,
      listFirstPageCpuMs,
      listHeadRefreshMs,
      listBeforeWatcherMs,
      listBeforeWatcherCpuMs,
      listColdMs,
      listWarmupMs,
      listAfterDeepDeleteMs,
      storeListFirstPageMs,
      upstreamListMs,
      listRatioToUpstream,
      v21,
      ftsMs,
      ftsCjkMs,
      ftsSubstringMs,
      ftsCjkShortMs,
      ftsEmojiMs,
      ftsShortAnsweredBy,
      writeToEventMs,
      hotPaths,
      idleCpuPercent,
      withPrompts,
      sessions,
      messages
    }
  } finally {
    watcher?.stop()
    registry.closeAll()
    if (temp) rmSync(temp, { recursive: true, force: true })
  }
}

/** The page users get (on the change event) and the one racing it (before the watcher), from one list run. */
function pageTimes(r: Awaited<ReturnType<typeof hostListFirstPageApart>>) {
  return {
    listFirstPageMs: r.onChange?.wall ?? r.wall,
    listFirstPageCpuMs: r.onChange?.cpu ?? r.cpu,
    listHeadRefreshMs: r.headRefresh?.wall ?? null,
    listBeforeWatcherMs: r.wall,
    listBeforeWatcherCpuMs: r.cpu
  }
}

/**
 * The list as #22 measures it — each sample right after another process wrote — on a given home too: that home is
 * never written, so its profile's state.db is copied (SQLite's backup: consistent while another program writes it)
 * and the writes go to the copy; upstream's own writer where the home is one an older upstream keeps (no
 * `last_activity_at`) and its Python is at hand, so the copy keeps that shape, else a Caduceus writer.
 */
async function listOnCopy(home: string, profile: string, mayWrite: boolean) {
  if (mayWrite) return hostListFirstPageApart(home, profile, true)
  const copy = mkdtempSync(join(tmpdir(), 'cad-bench-list-'))
  try {
    const dest = stateDbOf(copy, profile)
    mkdirSync(dirname(dest), { recursive: true })
    const src = new Database(stateDbOf(home, profile), { readonly: true, fileMustExist: true })
    let legacy = false
    try {
      await src.backup(dest)
      legacy = !src.prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'last_activity_at'").get()
    } finally {
      src.close()
    }
    return await hostListFirstPageApart(copy, profile, legacy && hasUpstream() ? 'upstream' : true)
  } finally {
    rmSync(copy, { recursive: true, force: true })
  }
}

/** An untouched v21 home from upstream's own code; Caduceus's host lists it while upstream appends. */
async function measureV21(opts: StoreBenchOptions, log: (line: string) => void): Promise<StoreBenchResult['v21']> {
  const dir = mkdtempSync(join(tmpdir(), 'cad-bench-v21-'))
  try {
    const t = performance.now()
    const made = JSON.parse(
      execFileSync(
        pythonBin(),
        [
          join(import.meta.dirname, 'upstream-home.py'),
          dir,
          String(opts.sessions ?? 10_000),
          String(opts.messagesPerSession ?? 50)
        ],
        { encoding: 'utf8', env: { ...process.env, HERMES_UPSTREAM: upstreamDir() }, timeout: 1_800_000 }
      )
        .trim()
        .split('\n')
        .pop()!
    ) as { sessions: number; messages: number }
    log(`v21 home generated by upstream in ${Math.round(performance.now() - t)} ms`)
    settle(stateDbOf(dir, 'default'))
    const listed = await hostListFirstPageApart(dir, 'default', 'upstream')
    const { cold: listColdMs, warmup: listWarmupMs } = listed
    const { listFirstPageMs, listFirstPageCpuMs, listHeadRefreshMs, listBeforeWatcherMs, listBeforeWatcherCpuMs } =
      pageTimes(listed)
    const upstreamListMs = upstreamListFirstPage(stateDbOf(dir, 'default'))
    const listRatioToUpstream =
      upstreamListMs && upstreamListMs.p95 > 0 ? round(upstreamListMs.p95 / listFirstPageMs.p95) : null
    log(
      `v21 list: host on change ${JSON.stringify(listFirstPageMs)} head refresh (50) ${JSON.stringify(listHeadRefreshMs)}; before the watcher ${JSON.stringify(listBeforeWatcherMs)}; cold ${listColdMs} ms warm-up ${JSON.stringify(listWarmupMs)} upstream ${JSON.stringify(upstreamListMs)}`
    )
    // Searches only read: the home stays one Caduceus never wrote, so these are complete scans.
    const registry = new StoreRegistry(dir)
    try {
      const store = registry.get('default')
      const timed = (q: string) => {
        store.search({ query: q })
        return pct(time(() => store.search({ query: q, limit: 50 }), 20))
      }
      const ftsCjkShortScanMs = timed('東京')
      const ftsEmojiScanMs = timed('🚀')
      const ftsScanAnsweredBy = store.searchFull({ query: '東京', limit: 50 }).fallback ?? ''
      log(`v21 scans: 東京 ${JSON.stringify(ftsCjkShortScanMs)} 🚀 ${JSON.stringify(ftsEmojiScanMs)}`)
      const hotPaths = await measureHotPaths(store)
      log(`v21 hot paths: ${JSON.stringify(hotPaths)}`)
      return {
        listFirstPageMs,
        listFirstPageCpuMs,
        listHeadRefreshMs,
        listBeforeWatcherMs,
        listBeforeWatcherCpuMs,
        listColdMs,
        listWarmupMs,
        upstreamListMs,
        listRatioToUpstream,
        ftsCjkShortScanMs,
        ftsEmojiScanMs,
        ftsScanAnsweredBy,
        hotPaths,
        ...made
      }
    } finally {
      registry.closeAll()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function measureWriteToEvent(
  store: SessionStore,
  events: Array<{ at: number; ids: string[] }>,
  rounds = 20
): Promise<Percentiles> {
  const sessionId = `bench_${process.pid}_${Date.now()}`
  const child = spawnWriter([store.path, sessionId, 'serve'])
  const lines = createInterface({ input: child.stdout })
  const queue: string[] = []
  let wake: (() => void) | null = null
  lines.on('line', (l) => {
    queue.push(l)
    wake?.()
  })
  const nextLine = async (): Promise<string> => {
    while (queue.length === 0)
      await new Promise<void>((r) => {
        wake = r
        setTimeout(r, 30_000)
      })
    return queue.shift()!
  }
  const eventFor = async (since: number): Promise<number> => {
    for (let waited = 0; waited < 30_000; waited += 2) {
      const e = events.slice(since).find((x) => x.ids.includes(sessionId))
      if (e) return e.at
      await new Promise((r) => setTimeout(r, 2))
    }
    throw new Error('no sessions.changed event for the writer session')
  }
  try {
    if ((await nextLine()) !== 'ready') throw new Error('writer failed to start')
    await new Promise((r) => setTimeout(r, 300)) // let the session-created event pass
    const samples: number[] = []
    for (let i = 0; i < rounds; i++) {
      const since = events.length
      child.stdin.write('append\n')
      const { t } = JSON.parse(await nextLine()) as { t: number }
      const at = await eventFor(since)
      samples.push(Math.max(0, at - t))
      await new Promise((r) => setTimeout(r, 120)) // outside the coalescing window: measure leading edges
    }
    return pct(samples)
  } finally {
    const exited = new Promise((r) => child.once('exit', r))
    child.stdin.end() // the writer closes its store (checkpoint) and exits on EOF
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    child.kill()
  }
}

// `npx tsx bench/store-bench.ts` runs it standalone.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void runStoreBench({ log: (l) => console.error(l) }).then((r) => console.log(JSON.stringify(r, null, 2)))
}

async function measureWithPrompts(
  store: SessionStore,
  home: string,
  log: (line: string) => void
): Promise<StoreBenchResult['withPrompts']> {
  const prompt = 'You are a careful assistant. Follow the tools guide, the memory and the skills below. '.repeat(260)
  await store.write((tx) => {
    txDb(tx).prepare('UPDATE sessions SET system_prompt = ? || id').run(prompt)
  })
  sqliteOf(store).pragma('wal_checkpoint(TRUNCATE)')
  settle(stateDbOf(home, 'default'))
  const { listFirstPageMs, listHeadRefreshMs } = pageTimes(await hostListFirstPageApart(home, 'default', true))
  const upstreamListMs = upstreamListFirstPage(stateDbOf(home, 'default'))
  log(
    `list with 22 KB prompts: host ${JSON.stringify(listFirstPageMs)} head refresh ${JSON.stringify(listHeadRefreshMs)} upstream ${JSON.stringify(upstreamListMs)}`
  )
  return { listFirstPageMs, listHeadRefreshMs, upstreamListMs }
}

/**
 * Waits until a home just generated is on disk: otherwise the kernel writes its ~500 MB back while the list is
 * measured, and on a 2-core box that flushing shows up as the list's p95.
 */
function settle(db: string): void {
  for (const f of [db, `${db}-wal`]) {
    if (!existsSync(f)) continue
    const fd = openSync(f, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}
