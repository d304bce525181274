import { pythonInt } from '@shared/contract/py-text'
import { refuseForeignFlags } from './command-flags'
import { PRUNE_VALUE_FLAGS } from './prune-flags'

/** Flags shared by `npm start`, Electron and `caduceus serve`. */
export interface HostArgs {
  home?: string
  port?: number
  demo: boolean
  open: boolean
  json: boolean
  /** sessions list/search: child sessions too (subagent runs, a tool's, unmarked), as the app's filter shows them */
  children: boolean
  profile?: string
  limit?: number
  query?: string
  /** `cron create --prompt TEXT` (run -z has its own parser: run-args.ts). */
  prompt?: string
  model?: string
  host?: string
  name?: string
  repeat?: number
  schedule?: string
  /** `cron create|edit --deliver TARGET` (local, origin, a platform, platform:chat_id, or a comma list). */
  deliver?: string
  /** serve: `--allow-host NAME`, each time it is given (a reverse proxy's name; checked by serve). */
  allowHosts?: string[]
  /**
   * `cron create|edit --skill S (repeatable) --script PATH --no-agent --workdir DIR`, and edit's `--add-skill S`,
   * `--remove-skill S` (both repeatable), `--clear-skills` and `--agent` (noAgent false; of the two, the last given
   * wins), as `hermes cron create|edit` take them.
   */
  cronJob?: {
    skills?: string[]
    addSkills?: string[]
    removeSkills?: string[]
    clearSkills?: boolean
    script?: string
    noAgent?: boolean
    workdir?: string
  }
  /** serve: replace the stored headless token (signs open tabs out). */
  rotateToken: boolean
  /** `cron list --all`: disabled (paused, finished) jobs too, as `hermes cron list --all`. */
  all: boolean
  /** `sessions list --workspace NEEDLE`: rows whose git repo root (else cwd) contains it, as upstream's. */
  workspace?: string
  /** `memory reset --target all|memory|user`. */
  memoryTarget?: string
  /** `sessions repair --check-only|--no-backup`. */
  repair?: { checkOnly?: boolean; noBackup?: boolean }
  /** sessions export/import/prune (sessions-admin.ts). */
  admin?: {
    format?: string
    only?: string
    lineage?: boolean
    /** `--session-id`, each time it is given (export: one session, or several as a selection). */
    sessions?: string[]
    redact?: boolean
    /** `--format trace`: write secrets as they are (the trace masks them by default). */
    noRedact?: boolean
    /** `--format trace --upload [--public]`: upstream's Hugging Face upload, refused here. */
    upload?: boolean
    force?: boolean
    deleteAfterVerified?: boolean
  }
  /** sessions prune filter flags, raw (prune-flags.ts reads them the way upstream's CLI does). */
  prune?: Record<string, string | true>
  positionals: string[]
}

/** Upstream's `hermes sessions prune` value flags (`--model` is shared with run: read as model-contains). */
const PRUNE_VALUES = new Set(PRUNE_VALUE_FLAGS)

/**
 * A whole number as argparse's `type=int` reads the text: Python's int() (shared pythonInt: space around, a sign, `_`
 * between digits, any Unicode decimal digits), else null; one past 2**53 is refused rather than rounded.
 */
function argparseInt(v: string | undefined): number | null {
  const n = v === undefined ? null : pythonInt(v)
  return n !== null && Number.isSafeInteger(n) ? n : null
}

export function parseArgs(argv: string[]): HostArgs {
  const out: HostArgs = {
    demo: false,
    open: false,
    json: false,
    children: false,
    rotateToken: false,
    all: false,
    positionals: []
  }
  // the flags as typed (no `=value`), judged against the command's own (command-flags.ts) once the line is read
  const given: string[] = []
  let unknown: string | undefined
  try {
    unknown = readArgs(argv, out, given)
  } catch (err) {
    // a flag the command does not take is said before what is wrong with its value (`sessions list --port x`)
    refuseForeignFlags(out.positionals, given)
    throw err
  }
  refuseForeignFlags(out.positionals, given)
  // no command (the app's own argv) or one that does not exist: a flag none takes is unknown
  if (unknown !== undefined) throw new Error(`unknown flag ${unknown}`)
  return out
}

/** Reads `argv` into `out`, each flag as typed into `given`; returns the first flag no command takes. */
function readArgs(argv: string[], out: HostArgs, given: string[]): string | undefined {
  let unknown: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined]
    // `-n`, `-a`: a short flag as argparse tells one (a dash and a letter, no space), not a word such as `-` or `-5`
    const isFlag = arg.startsWith('--') || (/^-[A-Za-z]/.test(arg) && !arg.includes(' '))
    if (isFlag) given.push(flag)
    // The next word is the value unless it is another flag (`--source --dry-run` must not read as source
    // '--dry-run', as upstream's argparse refuses it); `--flag=--text` still passes one that starts so.
    const value = () => {
      const v = inline ?? argv[++i]
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new Error(`${flag} needs a value`)
      return v
    }
    switch (flag) {
      case '--home':
        out.home = value()
        break
      case '--port': {
        const n = Number(value())
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error('--port must be an integer 0-65535')
        out.port = n
        break
      }
      case '--demo':
        out.demo = true
        break
      case '--open':
        out.open = true
        break
      case '--json':
        out.json = true
        break
      case '--children':
        out.children = true
        break
      case '--rotate-token':
        out.rotateToken = true
        break
      case '--all':
        out.all = true
        break
      case '--workspace':
        out.workspace = value()
        break
      case '--profile':
      case '-p': // upstream's short spelling
        out.profile = value()
        break
      case '--limit': {
        // any whole number, as argparse's int takes it (`sessions list`: 0 is none, a negative number all); the
        // other commands refuse what their request does not take
        const v = inline ?? argv[++i]
        const n = argparseInt(v)
        if (n === null) throw new Error('--limit must be a whole number')
        out.limit = n
        break
      }
      case '--target':
        out.memoryTarget = value()
        break
      case '--check-only':
        out.repair = { ...out.repair, checkOnly: true }
        break
      case '--no-backup':
        out.repair = { ...out.repair, noBackup: true }
        break
      case '--query':
        out.query = value()
        break
      case '--format':
        out.admin = { ...out.admin, format: value() }
        break
      case '--only':
        out.admin = { ...out.admin, only: value() }
        break
      // Upstream's `--lineage single|logical`; a bare `--lineage` (Caduceus's first spelling) is `logical`.
      case '--lineage': {
        const v = inline ?? (['single', 'logical'].includes(argv[i + 1] ?? '') ? argv[++i] : 'logical')
        if (v !== 'single' && v !== 'logical') throw new Error(`--lineage takes single or logical, not '${v}'`)
        out.admin = { ...out.admin, lineage: v === 'logical' }
        break
      }
      case '--session':
      case '--session-id':
        out.admin = { ...out.admin, sessions: [...(out.admin?.sessions ?? []), value()] }
        break
      case '--redact':
        out.admin = { ...out.admin, redact: true }
        break
      case '--force':
        out.admin = { ...out.admin, force: true }
        break
      case '--no-redact':
        out.admin = { ...out.admin, noRedact: true }
        break
      case '--upload':
      case '--public':
        out.admin = { ...out.admin, upload: true }
        break
      case '--delete-after-verified':
        out.admin = { ...out.admin, deleteAfterVerified: true }
        break
      case '--dry-run':
      case '--archived':
      case '--no-archived':
      case '--include-archived':
      case '--yes':
        out.prune = { ...out.prune, [flag.slice(2)]: true }
        break
      case '-y':
        out.prune = { ...out.prune, yes: true }
        break
      case '--model':
        out.model = value()
        break
      case '--host':
        out.host = value()
        break
      case '--allow-host':
        out.allowHosts = [...(out.allowHosts ?? []), value()]
        break
      case '--name':
        out.name = value()
        break
      case '--schedule':
        out.schedule = value()
        break
      case '--deliver':
        out.deliver = value()
        break
      case '--skill':
        out.cronJob = { ...out.cronJob, skills: [...(out.cronJob?.skills ?? []), value()] }
        break
      case '--script':
        out.cronJob = { ...out.cronJob, script: value() }
        break
      case '--add-skill':
        out.cronJob = { ...out.cronJob, addSkills: [...(out.cronJob?.addSkills ?? []), value()] }
        break
      case '--remove-skill':
        out.cronJob = { ...out.cronJob, removeSkills: [...(out.cronJob?.removeSkills ?? []), value()] }
        break
      case '--clear-skills':
        out.cronJob = { ...out.cronJob, clearSkills: true }
        break
      case '--no-agent':
        out.cronJob = { ...out.cronJob, noAgent: true }
        break
      case '--agent':
        out.cronJob = { ...out.cronJob, noAgent: false }
        break
      case '--workdir':
        out.cronJob = { ...out.cronJob, workdir: value() }
        break
      case '--prompt':
        out.prompt = value()
        break
      case '--repeat': {
        // argparse's int, as `hermes cron create|edit --repeat`: 0 or a negative count is "forever" (times null)
        const n = argparseInt(value())
        if (n === null) throw new Error('--repeat must be a whole number')
        out.repeat = n
        break
      }
      // upstream's approval of unseen shell hooks (`hermes cron run|tick --accept-hooks`): Caduceus runs no shell
      // hooks, so there is nothing to approve
      case '--accept-hooks':
        break
      default:
        if (PRUNE_VALUES.has(flag)) {
          out.prune = { ...out.prune, [flag.slice(2)]: value() }
          break
        }
        if (isFlag) unknown ??= arg
        else out.positionals.push(arg)
        break
    }
  }
  return unknown
}
