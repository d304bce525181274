/**
 * Finding the skill a cron job names under `<profile home>/skills/`, the ways upstream's skill loader finds one, so
 * a job loads the same skills in both programs: a folder path (`tone`, `writing/brief`, or `writing:brief` for the
 * same), a folder of that name anywhere below, a skill whose front matter `name:` is it, or a flat `<name>.md`. Two
 * matches are no match (upstream refuses to guess), and neither is a name that is absolute or climbs out with `..`.
 * A `references/`, `templates/`, `assets/` or `scripts/` folder inside a skill holds that skill's data, not skills.
 * A skill is not loaded when its front matter's `platforms:` leaves out this operating system, or when config.yaml's
 * `skills.disabled` names it (by its front-matter name, else its folder's). The skill's text is its whole file, front
 * matter included, as upstream hands it to the agent, with `${HERMES_SKILL_DIR}` filled in.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, sep } from 'node:path'
import { parse } from 'yaml'
import { loadConfig, readSection } from '../config'

const SUPPORT = new Set(['references', 'templates', 'assets', 'scripts'])
/** Folders no skill lives in: hidden ones (version control, caches, archives) and installed dependencies. */
const skipped = (name: string) => name.startsWith('.') || ['venv', 'node_modules', 'site-packages'].includes(name)

const isFile = (p: string) => existsSync(p) && statSync(p).isFile()
const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory()

/** Whether `rel` (inside `root`) lies in a support folder directly inside a skill's folder. */
function inSupportFolder(root: string, rel: string): boolean {
  const parts = rel.split(/[\\/]/)
  for (let i = 1; i < parts.length - 1; i++)
    if (SUPPORT.has(parts[i]!) && isFile(join(root, ...parts.slice(0, i), 'SKILL.md'))) return true
  return false
}

/** A SKILL.md's front matter (empty when it has none or it cannot be read). */
function frontMatter(text: string): Record<string, unknown> {
  if (!text.startsWith('---')) return {}
  const end = /\n---\s*\n/.exec(text.slice(3))
  if (!end) return {}
  const head = text.slice(3, end.index + 3)
  try {
    const meta = parse(head) as unknown
    return meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {}
  } catch {
    // YAML it cannot read: its plain `key: value` lines
    const pairs: Array<[string, string]> = []
    for (const line of head.split('\n')) {
      const m = /^\s*(\w+):\s*(.+?)\s*$/.exec(line)
      if (m) pairs.push([m[1]!, m[2]!])
    }
    return Object.fromEntries(pairs)
  }
}

const frontMatterName = (text: string) => {
  const name = frontMatter(text).name
  return name == null ? null : String(name)
}

const OS_NAMES: Record<string, string> = { macos: 'darwin', linux: 'linux', windows: 'win32' }

/** Whether this skill may load here: its `platforms:` (if any) include this OS, and config.yaml does not turn it off. */
function allowed(home: string, file: string, text: string): boolean {
  const meta = frontMatter(text)
  const platforms = meta.platforms
  if (platforms) {
    const list = (Array.isArray(platforms) ? platforms : [platforms]).map((p) => String(p).trim().toLowerCase())
    if (!list.some((p) => process.platform.startsWith(OS_NAMES[p] ?? p))) return false
  }
  const name = meta.name != null ? String(meta.name) : (file.split(sep).at(-2) ?? '')
  const disabled = readSection(loadConfig(home).raw, 'skills').disabled
  return !(Array.isArray(disabled) && disabled.map(String).includes(name))
}

/** Every file below `root` a skill can be (SKILL.md, other .md), not descending into a skill's support folders. */
function skillFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return // a folder it may not read holds no skill it can load (upstream's walk skips it too)
    }
    const isSkill = entries.some((e) => e.name === 'SKILL.md' && !e.isDirectory())
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = join(dir, e.name)
      const folder = e.isDirectory() || (e.isSymbolicLink() && isDir(p))
      if (folder) {
        if (!skipped(e.name) && !(isSkill && SUPPORT.has(e.name))) walk(p)
      } else if (e.name.endsWith('.md')) out.push(p)
    }
  }
  walk(root)
  return out
}

/** The file of the skill `name` names in `<home>/skills`, or null (none, or more than one). */
function findSkill(home: string, name: string): string | null {
  const root = join(home, 'skills')
  const want = name.trim()
  if (!want || !isDir(root)) return null
  if (/^([\\/]|[A-Za-z]:)/.test(want) || want.split(/[\\/]/).includes('..')) return null
  const found = new Map<string, string>()
  const add = (p: string) => {
    let key = p
    try {
      key = realpathSync(p)
    } catch {
      /* a dangling link is compared by its path */
    }
    if (!found.has(key)) found.set(key, p)
  }
  const direct = (rel: string) => {
    if (inSupportFolder(root, rel)) return
    const dir = join(root, rel)
    if (isDir(dir) && isFile(join(dir, 'SKILL.md'))) add(join(dir, 'SKILL.md'))
    else if (isFile(`${dir}.md`)) add(`${dir}.md`)
  }
  direct(want)
  // `category:skill` is the same skill as `category/skill` (no plugin registry here to claim the namespace).
  const colon = /^([A-Za-z0-9_-]+):(.+)$/.exec(want)
  if (want.includes(':') && !colon) return null
  if (colon) {
    const rel = `${colon[1]}/${colon[2]}`
    if (rel.split(/[\\/]/).includes('..')) return null
    direct(rel)
  }
  for (const file of skillFiles(root)) {
    const parts = file.split(sep)
    if (parts.at(-1) === 'SKILL.md') {
      if (parts.at(-2) === want) add(file)
      else if (frontMatterName(readFileSync(file, 'utf8')) === want) add(file)
    } else if (parts.at(-1) === `${want}.md` && !inSupportFolder(root, file.slice(root.length + 1))) add(file)
  }
  return found.size === 1 ? [...found.values()][0]! : null
}

/** The text of the skill a job names, trimmed, or null when it cannot be found (or is ambiguous). */
export function readSkill(home: string, name: string): string | null {
  const file = findSkill(home, name)
  if (!file) return null
  try {
    const text = readFileSync(file, 'utf8')
    if (!allowed(home, file, text)) return null
    // A skill folder's SKILL.md may name files beside it as ${HERMES_SKILL_DIR} (upstream's skills.template_vars, on
    // unless config.yaml turns it off); a cron run has no session for ${HERMES_SESSION_ID}, which stays as written.
    const folder = file.endsWith(`${sep}SKILL.md`) ? file.slice(0, -`${sep}SKILL.md`.length) : null
    const vars = readSection(loadConfig(home).raw, 'skills').template_vars
    return (folder && vars !== false ? text.replaceAll('${HERMES_SKILL_DIR}', folder) : text).trim()
  } catch {
    return null // unreadable: skipped and named as not found, as upstream's loader answers
  }
}
