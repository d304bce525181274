/**
 * The files a home keeps beside a session's rows, removed once the session is deleted, as upstream's delete and
 * prune remove them (hermes_state `_remove_session_files`, called with `<home>/sessions`): in `<home>/sessions/`,
 * `<id>.json`, `<id>.jsonl` and every `request_dump_<id>_*.json` (the request bodies a failed model call dumped,
 * prompts included). Nothing else: the `session_<id>.json` log upstream writes stays, as upstream leaves it.
 *
 * Narrower than upstream on purpose, never wider:
 * - names are matched against the folder's own listing, so an id that is not one plain file name (a `/`, a `..`)
 *   matches nothing, and glob characters in an id are only characters;
 * - a `sessions` folder that resolves outside the home (a symlink pointing elsewhere) is left alone, and a symlink
 *   inside it is removed as a link, never followed;
 * - a dump named as upstream names them, `request_dump_<owner>_<YYYYMMDD_HHMMSS_ffffff>.json`, belongs to exactly that
 *   owner: deleting `a` takes `a`'s own dumps whatever other ids exist, and a longer id's (`a_b`) only when no such
 *   session is left, never a kept one's; deleting `a_b` takes its own. Upstream's glob takes `a_b`'s with `a`'s.
 * - any other `request_dump_<id>_<rest>.json` is another session's when `<id>_<part of rest>` is a session that still
 *   exists (`live`).
 * A file that cannot be removed is skipped, as upstream skips it: the rows are already gone either way.
 */
import { readdirSync, realpathSync, rmSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'

const inside = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** Whether `rest` (what follows `request_dump_<id>_`) names a dump of a longer session id that still exists. */
function ownedByAnother(id: string, rest: string, live: (id: string) => boolean): boolean {
  for (let k = rest.indexOf('_'); k > 0; k = rest.indexOf('_', k + 1))
    if (live(`${id}_${rest.slice(0, k)}`)) return true
  return false
}

/** The time upstream's dump names end with (`datetime.now().strftime("%Y%m%d_%H%M%S_%f")`), then `.json`. */
const DUMP_TIME = /_(\d{8}_\d{6}_\d{6})\.json$/

function belongs(name: string, id: string, live: (id: string) => boolean): boolean {
  if (name === `${id}.json` || name === `${id}.jsonl`) return true
  const pre = `request_dump_${id}_`
  if (!name.startsWith(pre) || !name.endsWith('.json') || name.length < pre.length + 5) return false
  // Guessing the owner at each '_' read a's own dump as a kept session's when that id looked like a's id plus the
  // dump's time (a = "job", a kept "job_20260101_120000"): the time upstream appends says where the owner ends.
  const timed = DUMP_TIME.exec(name)
  if (timed && timed.index >= pre.length - 1) {
    const owner = name.slice('request_dump_'.length, timed.index)
    return owner === id || !live(owner)
  }
  return !ownedByAnother(id, name.slice(pre.length, -5), live)
}

/**
 * Removes the files of the deleted sessions `ids` from `<home>/sessions/`; `live` says whether a session id still
 * exists in the home. Returns the names removed.
 */
export function removeSessionFiles(home: string, ids: readonly string[], live: (id: string) => boolean): string[] {
  const wanted = ids.filter((id) => id !== '')
  if (!wanted.length) return []
  const dir = join(home, 'sessions')
  let names: string[]
  try {
    if (!inside(realpathSync(home), realpathSync(dir))) return []
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => e.name)
  } catch {
    // No sessions folder, or one that cannot be read: the delete already happened, and its files never fail it.
    return []
  }
  const removed: string[] = []
  for (const name of names) {
    if (!wanted.some((id) => belongs(name, id, live))) continue
    try {
      rmSync(join(dir, name)) // a symlink goes as a link: rm never follows it
      removed.push(name)
    } catch {
      // gone meanwhile, or not ours to remove: as upstream, a file never fails a delete that already happened
    }
  }
  return removed
}
