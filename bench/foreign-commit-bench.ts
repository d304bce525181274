/**
 * What upstream's turns cost a running Caduceus besides the list: a store and its watcher on a home whose short-text
 * index is current, upstream's own `append_message` committing from another process (bench/upstream-writer.py, which
 * checkpoints every 50 writes as upstream does, so its WAL restarts), each commit seen by the watcher, then every
 * recheck of the index it asked for run to its end. Reports this process's CPU time over the whole run and how many
 * commits the WAL could not name rows for (each of those has the index recheck every row it holds).
 *
 *   npx tsx bench/foreign-commit-bench.ts STATE_DB [COMMITS] [spaced]
 *
 * `spaced`: each commit's recheck ends before the next commit (turns seconds apart, as a user's are); without it the
 * commits come back to back and a recheck of every row restarted by the next one is paid about once.
 *
 *   npx tsx bench/foreign-commit-bench.ts STATE_DB COMMITS session
 *
 * `session`: an upstream session of COMMITS turns while no Caduceus runs, between an app run that ends with its index
 * verified and the next ones: the CPU of a one-shot CLI short search (open, search, close), then of the app's start
 * until its recheck has ended.
 *
 * STATE_DB is changed (upstream's appends; Caduceus's index catch-up): run it on a copy.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SessionStore, SessionWatcher } from '../src-main/store/index'
import { pythonBin, upstreamDir } from './list-after-write'

export async function foreignCommits(
  path: string,
  commits = 700,
  spaced = false
): Promise<{ cpuMs: number; commits: number; unnamed: number; named: number }> {
  const store = new SessionStore(path, { profile: 'default' })
  let unnamed = 0
  let named = 0
  const note = store.noteRowsWritten.bind(store)
  store.noteRowsWritten = (rowids) => {
    if (rowids === null) unnamed++
    else named++
    note(rowids)
  }
  const watcher = new SessionWatcher(store, () => undefined, { fallbackMs: 60_000 }).start()
  const child = spawn(
    pythonBin(),
    [resolve(import.meta.dirname, 'upstream-writer.py'), path, `bench_fc_${process.pid}`],
    {
      env: { ...process.env, HERMES_UPSTREAM: upstreamDir() },
      stdio: 'pipe'
    }
  )
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async () => String((await lines.next()).value)
  // the store's recheck state, read for the bench only (its slices run on the store's timers)
  const internals = store as unknown as { rechecks: { pending: boolean; changed: Set<number> } }
  const settled = async () => {
    while (internals.rechecks.pending || internals.rechecks.changed.size) await new Promise((r) => setTimeout(r, 20))
  }
  try {
    if ((await next()) !== 'ready') throw new Error('writer failed to start')
    watcher.check()
    await settled()
    unnamed = named = 0
    const c = process.cpuUsage()
    for (let i = 0; i < commits; i++) {
      child.stdin.write('append\n')
      await next()
      watcher.check()
      await new Promise((r) => setImmediate(r)) // the store's timers get their turn, as in the app
      if (spaced) await settled() // turns seconds apart: each recheck runs to its end before the next commit
    }
    await settled()
    const used = process.cpuUsage(c)
    return { cpuMs: Math.round((used.user + used.system) / 1000), commits, unnamed, named }
  } finally {
    child.stdin.end()
    await new Promise((r) => child.once('exit', r))
    watcher.stop()
    store.close()
  }
}

/** The `session` run (see the top). */
export async function afterUpstreamSession(path: string, turns: number) {
  const app = async () => {
    const store = new SessionStore(path, { profile: 'default' })
    const watcher = new SessionWatcher(store, () => undefined, { fallbackMs: 60_000 }).start()
    const internals = store as unknown as { rechecks: { pending: boolean; changed: Set<number> } }
    const c = process.cpuUsage()
    while (internals.rechecks.pending || internals.rechecks.changed.size) await new Promise((r) => setTimeout(r, 20))
    const used = process.cpuUsage(c)
    watcher.stop()
    store.close() // records the index's mark: it matched what this run left
    return Math.round((used.user + used.system) / 1000)
  }
  await app()
  const child = spawn(
    pythonBin(),
    [resolve(import.meta.dirname, 'upstream-writer.py'), path, `bench_us_${process.pid}`],
    {
      env: { ...process.env, HERMES_UPSTREAM: upstreamDir() },
      stdio: 'pipe'
    }
  )
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  if (String((await lines.next()).value) !== 'ready') throw new Error('writer failed to start')
  for (let i = 0; i < turns; i++) {
    child.stdin.write('append\n')
    await lines.next()
  }
  child.stdin.end()
  await new Promise((r) => child.once('exit', r))
  const c = process.cpuUsage()
  const cli = new SessionStore(path, { profile: 'default' })
  const found = cli.searchFull({ query: '京', limit: 20 })
  cli.close()
  const used = process.cpuUsage(c)
  return {
    turns,
    cliSearchCpuMs: Math.round((used.user + used.system) / 1000),
    cliFallback: found.fallback ?? '',
    appStartRecheckCpuMs: await app()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [path, n, spaced] = process.argv.slice(2)
  if (spaced === 'session') {
    process.stdout.write(`${JSON.stringify(await afterUpstreamSession(path!, Number(n ?? 100)))}\n`)
    process.exit(0)
  }
  if (!path) throw new Error('usage: foreign-commit-bench.ts STATE_DB [COMMITS] [spaced]')
  const r = await foreignCommits(path, n ? Number(n) : undefined, spaced === 'spaced')
  process.stdout.write(`${JSON.stringify(r)}\n`)
}
