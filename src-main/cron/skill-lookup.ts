/**
 * Finding the skill a cron job names under `<profile home>/skills/` and the folders config.yaml's
 * `skills.external_dirs` adds, the ways upstream's skill loader finds one, so
 * a job loads the same skills in both programs: a folder path (`tone`, `writing/brief`, or `writing:brief` for the
 * same), a folder of that name anywhere below, a skill whose front matter `name:` is it, or a flat `<name>.md`. Two
 * matches are no match (upstream refuses to guess), and neither is a name that is absolute or climbs out with `..`.
 * A `references/`, `templates/`, `assets/` or `scripts/` folder inside a skill holds that skill's data, not skills.
 * A skill is not loaded when its front matter's `platforms:` leaves out this operating system, or when config.yaml's
 * `skills.disabled` names it (by its front-matter name, else its folder's). The skill's text is its whole file, front
 * matter included, as upstream hands it to the agent, with `${HERMES_SKILL_DIR}` filled in.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve, sep } from 'node:path'
import { parse } from 'yaml'
import { isPlainObject, loadConfig, readSection } from '../config'
import { homeKey } from '../scope'
import { profileEnv } from '../secrets'

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
  return !disabledByConfig(readSection(loadConfig(home).raw, 'skills').disabled, name)
}

/**
 * Whether config.yaml's `skills.disabled` turns `name` off as upstream's skill lookup asks it (`name in disabled`,
 * golden cron-prompts): a list holds the very string (no str() or strip: `yes`, `7`, `' x '` turn nothing off), a
 * mapping has it as a key, a string contains it; anything else turns nothing off.
 */
function disabledByConfig(disabled: unknown, name: string): boolean {
  if (Array.isArray(disabled)) return disabled.includes(name)
  if (typeof disabled === 'string') return disabled.includes(name)
  return isPlainObject(disabled) && Object.hasOwn(disabled, name)
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

/**
 * The folders config.yaml's `skills.external_dirs` adds to `<home>/skills` (skills kept outside the profile, e.g. one
 * folder shared with other agents), read as upstream reads them: each entry with `$VAR` / `${VAR}` (the profile's
 * .env over the environment) and a leading `~` expanded, a relative one taken from the profile's folder; only
 * folders that exist, each once, never the profile's own skills folder.
 */
function externalSkillDirs(home: string): string[] {
  const raw = readSection(loadConfig(home).raw, 'skills').external_dirs
  const entries: unknown[] = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : []
  if (!entries.length) return []
  const lookup = profileEnv(home)
  const local = homeKey(join(home, 'skills'))
  const out: string[] = []
  for (const entry of entries) {
    const text = String(entry ?? '').trim()
    if (!text) continue
    // Python's os.path.expandvars (an unknown name stays as written), then expanduser for `~` and `~/...`
    const expanded = text
      .replace(/\$(\w+|\{([^}]*)\})/g, (all, bare: string, braced?: string) => lookup(braced ?? bare) ?? all)
      .replace(/^~(?=$|[\\/])/, homedir())
    const dir = homeKey(isAbsolute(expanded) ? expanded : join(resolve(home), expanded))
    if (dir !== local && !out.includes(dir) && isDir(dir)) out.push(dir)
  }
  return out
}

/**
 * The file of the skill `name` names in `<home>/skills` or an external skills folder, or null (none, or more than
 * one: a name found in two folders is refused, as upstream refuses to guess).
 */
function findSkill(home: string, name: string): string | null {
  const local = join(home, 'skills')
  const roots = [...(isDir(local) ? [local] : []), ...externalSkillDirs(home)]
  const want = name.trim()
  if (!want || !roots.length) return null
  if (/^([\\/]|[A-Za-z]:)/.test(want) || want.split(/[\\/]/).includes('..')) return null
  const colon = /^([A-Za-z0-9_-]+):(.+)$/.exec(want)
  if (want.includes(':') && !colon) return null
  if (colon && `${colon[1]}/${colon[2]}`.split(/[\\/]/).includes('..')) return null
  const found = new Map<string, string>()
  for (const root of roots) lookIn(root, want, colon, found)
  return found.size === 1 ? [...found.values()][0]! : null
}

/** Every file in `root` that `want` names (by each of upstream's ways), added to `found` keyed by its real path. */
function lookIn(root: string, want: string, colon: RegExpExecArray | null, found: Map<string, string>) {
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
  if (colon) direct(`${colon[1]}/${colon[2]}`)
  for (const file of skillFiles(root)) {
    const parts = file.split(sep)
    if (parts.at(-1) === 'SKILL.md') {
      if (parts.at(-2) === want) add(file)
      else if (frontMatterName(readFileSync(file, 'utf8')) === want) add(file)
    } else if (parts.at(-1) === `${want}.md` && !inSupportFolder(root, file.slice(root.length + 1))) add(file)
  }
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
