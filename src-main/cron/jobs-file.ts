/**
 * `<profile home>/cron/jobs.json` = `{"jobs": [...], "updated_at": ISO}` (hermes-channels §3). Every
 * change is read-modify-write under upstream's own lock (flock on `cron/.jobs.lock`, jobs-lock.ts) and
 * lands by temp file + rename, so a reader never sees half a file. Jobs are kept as raw objects: fields
 * this app does not know (newer upstream versions) survive every rewrite untouched.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { refuseUnwritable, replaceFile } from '../files'
import { withJobsLock } from './jobs-lock'
import { isoWithOffset } from './schedule'
import { timeZoneOf } from './time-zone'
import { errorMessage, isNotFound } from '@shared/contract/errors'

export type RawJob = Record<string, unknown> & { id: string }
export interface JobsFile {
  jobs: RawJob[]
  [k: string]: unknown
}

export class JobsFileError extends Error {}

export const cronDir = (home: string) => join(home, 'cron')
export const jobsPath = (home: string) => join(cronDir(home), 'jobs.json')

export function readJobs(home: string): JobsFile {
  let text: string
  try {
    text = readFileSync(jobsPath(home), 'utf8')
  } catch (err) {
    if (isNotFound(err)) return { jobs: [] }
    throw err
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    // Upstream reads a file whose strings hold raw control characters (a hand edit pasting a tab or a line break)
    // as if they were escaped; so does this. Never "repaired" by overwriting here: the next rewrite escapes them.
    try {
      parsed = JSON.parse(escapeControlChars(text))
    } catch {
      // still not JSON: the first parse's error says where
      throw new JobsFileError(`${jobsPath(home)} is not valid JSON (${errorMessage(err)}); fix or move it`)
    }
  }
  // A bare list of jobs (saved by hand or by another tool) is read as upstream reads it: the jobs; a rewrite gives
  // it back upstream's `{"jobs": [...]}` shape.
  if (Array.isArray(parsed)) parsed = { jobs: parsed }
  const obj = parsed && typeof parsed === 'object' ? (parsed as JobsFile) : null
  if (!obj || !Array.isArray(obj.jobs)) throw new JobsFileError(`${jobsPath(home)} has no "jobs" list`)
  const jobs: RawJob[] = []
  const aside: Array<[number, unknown]> = []
  obj.jobs.forEach((j: unknown, i) => {
    const o = j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : null
    // An older writer's `job_id` is the id, as upstream's due scan repairs it (written back only with a change).
    if (o && typeof o.id !== 'string' && typeof o.job_id === 'string' && o.job_id) {
      o.id = o.job_id
      delete o.job_id
    }
    if (o && typeof o.id === 'string') jobs.push(o as RawJob)
    else aside.push([i, j])
  })
  obj.jobs = jobs
  if (aside.length) setAside.set(obj, aside)
  return obj
}

/** `text` with each raw control character inside a JSON string written as its `\u` escape (JSON.parse refuses them raw). */
function escapeControlChars(text: string): string {
  let out = ''
  let inString = false
  let escaped = false
  for (const ch of text) {
    const code = ch.charCodeAt(0)
    if (inString && code < 0x20) out += `\\u${code.toString(16).padStart(4, '0')}`
    else out += ch
    if (escaped) escaped = false
    else if (inString && ch === '\\') escaped = true
    else if (ch === '"') inString = !inString
  }
  return out
}

/** Entries no job can be made of (no id, not an object): never listed, never run, and never dropped by a rewrite. */
const setAside = new WeakMap<JobsFile, Array<[number, unknown]>>()

function withSetAside(file: JobsFile): unknown[] {
  const all: unknown[] = [...file.jobs]
  for (const [i, j] of setAside.get(file) ?? []) all.splice(Math.min(i, all.length), 0, j)
  return all
}

/**
 * Always 0600, as upstream's save_jobs leaves it; a symlinked jobs.json stays one and its target is replaced, as
 * upstream's atomic_replace keeps it.
 */
function writeAtomic(home: string, file: JobsFile): void {
  const updated_at = isoWithOffset(Date.now(), timeZoneOf(home))
  replaceFile(jobsPath(home), `${JSON.stringify({ ...file, jobs: withSetAside(file), updated_at }, null, 2)}\n`, {
    modeOf: () => 0o600,
    followLinks: true
  })
}

/**
 * Read-modify-write jobs.json under the lock. `fn` mutates the file in place and returns a value; the file
 * is written only when `fn` says it changed something (returns `{ changed: true }` via the second arg).
 */
export async function updateJobs<T>(
  home: string,
  fn: (file: JobsFile, markChanged: () => void) => T | Promise<T>
): Promise<T> {
  // the folder, its lock and the file: a home this user cannot write refuses at the first, in words
  return refuseUnwritable('cron/jobs.json', () => lockedUpdate(home, fn))
}

async function lockedUpdate<T>(
  home: string,
  fn: (file: JobsFile, markChanged: () => void) => T | Promise<T>
): Promise<T> {
  mkdirSync(cronDir(home), { recursive: true, mode: 0o700 })
  return withJobsLock(cronDir(home), async () => {
    const file = readJobs(home)
    let changed = false
    const out = await fn(file, () => {
      changed = true
    })
    if (changed) writeAtomic(home, file)
    return out
  })
}
