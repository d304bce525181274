/**
 * What a job runs beside its prompt, checked as upstream's create checks it (`hermes cron create --skill --script
 * --no-agent --workdir`): skills trimmed and unique, a script only inside `<home>/scripts`, a working folder only an
 * absolute path to an existing folder. Each refusal is thrown before jobs.json is touched.
 */
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'

export interface JobFields {
  skills?: string[]
  script?: string
  noAgent?: boolean
  workdir?: string
}

/** Skills as given, each trimmed, blanks dropped, a repeat kept once (in first-given order). */
export const normalSkills = (skills: readonly string[] = []) => [
  ...new Set(skills.map((s) => String(s).trim()).filter(Boolean))
]

/**
 * The skills a stored job loads, as upstream's readers (its list, due scan and update) take them: its `skills` list
 * (a lone text is one skill), else an older writer's single `skill`; trimmed, blanks dropped, each once. The one
 * reader of a job's skills here: the list and the Cron page, a run's prompt, and an edit's result all read it.
 */
export function jobSkills(job: Record<string, unknown>): string[] {
  const v = job.skills ?? (job.skill ? [job.skill] : [])
  const items: unknown[] = Array.isArray(v) ? v : typeof v === 'string' ? [v] : []
  return normalSkills(items.map((s) => (s ? String(s) : '')))
}

/** A real path where it exists, else the path resolved (as Python's non-strict resolve()). */
const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p))

/**
 * Where a job's script leads — relative to `<home>/scripts`, or an absolute or `~` path — and whether that lies
 * inside the scripts folder (symlinks followed where they exist). The folder is made as upstream makes it, so a
 * script named before it is written is checked against the real one. Both the check when a job is written
 * (validScript) and the one before it runs (job-script.ts) read a script through this.
 */
export function scriptPath(home: string, script: string): { root: string; path: string; inside: boolean } {
  const dir = join(home, 'scripts')
  mkdirSync(dir, { recursive: true })
  const root = realpathSync(dir)
  const raw = script.startsWith('~') ? join(homedir(), script.slice(1)) : script
  const path = real(isAbsolute(raw) ? resolve(raw) : resolve(root, raw))
  const rel = relative(root, path)
  return { root, path, inside: !(rel.startsWith('..') || isAbsolute(rel)) }
}

/** The script as stored (trimmed; null: none), refused when it could run anything outside the scripts folder. */
export function validScript(home: string, script: string | undefined): string | null {
  const raw = (script ?? '').trim()
  if (!raw) return null
  if (raw.startsWith('/') || raw.startsWith('~') || raw[1] === ':')
    throw new Error(
      `A job's script is named relative to ${join(home, 'scripts')}: ${JSON.stringify(raw)} is an absolute or ` +
        'home path. Put the script in that folder and give its name.'
    )
  const { root, inside } = scriptPath(home, raw)
  if (!inside) throw new Error(`A job's script must stay inside ${root}: ${JSON.stringify(raw)} leads out of it`)
  return raw
}

/** The working folder as stored (absolute and resolved; null: none), refused unless it is an existing folder. */
export function validWorkdir(workdir: string | undefined): string | null {
  const raw = (workdir ?? '').trim()
  if (!raw) return null
  const expanded = raw === '~' || raw.startsWith('~/') ? join(homedir(), raw.slice(1)) : raw
  if (!isAbsolute(expanded))
    throw new Error(
      `A job's working folder must be an absolute path, not ${JSON.stringify(raw)}: a job runs from no shell, ` +
        'so a relative one names no folder'
    )
  const path = real(expanded)
  if (!existsSync(path)) throw new Error(`The job's working folder does not exist: ${path}`)
  if (!statSync(path).isDirectory()) throw new Error(`The job's working folder is not a folder: ${path}`)
  return path
}
