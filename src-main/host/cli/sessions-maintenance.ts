/**
 * `caduceus sessions optimize|repair`, as `hermes sessions optimize|repair`, on the profile's state.db file. Optimize
 * merges the FTS indexes' segments and VACUUMs (no data changes, no index rebuilt). Repair checks the file as
 * upstream's does; it changes nothing, because every repair upstream has rebuilds or drops the FTS indexes (or
 * rewrites sqlite_master), and an index rebuilt with this SQLite would not match upstream's for rows holding a NUL
 * byte (store/fts-nul.ts): it says so and names upstream's own repair instead.
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SessionStore } from '../../store'
import type { HostArgs } from './args'
import { profileHome } from './profile'
import { pyFixed1 } from './py-fixed'

const mb = (path: string) => (existsSync(path) ? statSync(path).size / (1024 * 1024) : 0)

export function maintenance(sub: 'optimize' | 'repair', args: HostArgs): number {
  const path = join(profileHome(args).home, 'state.db')
  if (!existsSync(path)) {
    console.log(`No session database at ${path} (nothing to ${sub}).`)
    return 0
  }
  return sub === 'optimize' ? optimize(path) : repair(path, args.repair?.checkOnly === true)
}

function optimize(path: string): number {
  const before = mb(path)
  console.log('Optimizing session store (FTS merge + VACUUM)…')
  let indexes: number
  try {
    ;({ indexes } = SessionStore.optimizeFile(path))
  } catch (err) {
    console.error(`Error: optimization failed: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  }
  const after = mb(path)
  console.log(`Optimized ${indexes} FTS index(es).`)
  console.log(
    `Database size: ${pyFixed1(before)} MB -> ${pyFixed1(after)} MB (reclaimed ${pyFixed1(before - after)} MB)`
  )
  return 0
}

function repair(path: string, checkOnly: boolean): number {
  const { problem, unjudged } = SessionStore.checkFile(path)
  if (unjudged.length)
    console.error(
      `caduceus: FTS index ${unjudged.join(', ')} not judged here: rows holding a NUL byte are indexed differently by ` +
        "upstream's SQLite, whose index this SQLite then reports as malformed; `hermes sessions repair --check-only` judges it"
    )
  if (problem === null) {
    console.log(`✓ ${path} opens cleanly — no repair needed.`)
    return 0
  }
  console.log(`✗ ${path} does not open cleanly: ${problem}`)
  if (checkOnly) return 1
  console.error(
    'caduceus sessions repair: not repairing. Upstream repairs by rebuilding the FTS indexes, de-duplicating ' +
      'sqlite_master or dropping the FTS schema for a rebuild; an index this SQLite builds does not match what ' +
      "upstream's SQLite reads for rows holding a NUL byte, so the repair is left to upstream: with Caduceus closed, " +
      'run `hermes sessions repair` (it backs the file up first). Nothing was changed.'
  )
  return 1
}
