/**
 * Which flags each `caduceus` command (and verb) takes. The parser reads every flag for every command, so without
 * this a flag meant for another command (`sessions list --dry-run`, `cron create --prompt`) or a typo of one would
 * be taken and ignored: nothing done differently and nothing said. Upstream's argparse refuses such a flag (exit 2,
 * scripts/golden/foreign_flags.py); here it is refused in one line naming the flag, the command and who takes it.
 */
import { PRUNE_VALUE_FLAGS } from './prune-flags'
import { UsageError } from './run-args'

/** Taken by every command. `--json` is judged per verb by main.ts (its own "has no --json output" line). */
const GLOBAL = ['--home', '--profile', '--json']

const FILTERS = ['--model', ...PRUNE_VALUE_FLAGS]
const ARCHIVED = ['--archived', '--no-archived', '--include-archived']
const CRON_JOB = ['--name', '--repeat', '--model', '--deliver']
const CRON_RUNS = ['--skill', '--script', '--no-agent', '--workdir']
/** `cron edit`'s own, as upstream's edit parser takes them (its create parser refuses them) */
const CRON_EDITS = ['--add-skill', '--remove-skill', '--clear-skills', '--agent']
const CRON_LIST = ['--all']

/**
 * command → verb → flags; '' is the command with no verb (or a command that has none). A verb not listed is the
 * command's own to refuse (its unknown-verb message).
 */
const TAKES: Record<string, Record<string, readonly string[]>> = {
  serve: { '': ['--port', '--host', '--demo', '--rotate-token', '--allow-host'] },
  api: { '': ['--host', '--port'] },
  logs: { '': ['--limit'], errors: ['--limit'] },
  sessions: {
    '': [],
    list: ['--source', '--limit', '--workspace', '--children'],
    show: ['--limit'],
    search: ['--limit', '--children'],
    export: [
      ...FILTERS,
      '--dry-run',
      '--yes',
      '--format',
      '--only',
      '--lineage',
      '--session-id',
      '--redact',
      '--no-redact',
      '--upload',
      '--public',
      '--force',
      '--delete-after-verified'
    ],
    import: [],
    delete: ['--yes'],
    rename: [],
    stats: [],
    prune: [...FILTERS, ...ARCHIVED, '--dry-run', '--yes'],
    archive: [...FILTERS, '--dry-run', '--yes'],
    optimize: [],
    repair: ['--check-only', '--no-backup']
  },
  // --accept-hooks: upstream's cron takes it on every verb (it approves shell hooks; Caduceus runs none)
  cron: Object.fromEntries(
    Object.entries({
      '': CRON_LIST,
      list: CRON_LIST,
      create: [...CRON_JOB, ...CRON_RUNS],
      add: [...CRON_JOB, ...CRON_RUNS],
      edit: [...CRON_JOB, ...CRON_RUNS, ...CRON_EDITS, '--schedule', '--prompt'],
      pause: [],
      resume: [],
      remove: [],
      rm: [],
      delete: [],
      run: [],
      status: [],
      tick: []
    }).map(([verb, flags]) => [verb, [...flags, '--accept-hooks']])
  ),
  memory: { '': [], status: [], setup: [], off: [], reset: ['--target', '--yes'], pending: [], approve: [], reject: [] }
}

/**
 * The flags the app's own argv carries with no command (`npm start`, Electron: host/electron/app-policy.ts keeps only
 * these), which print the usage when the CLI gets them alone.
 */
const NO_COMMAND = [...GLOBAL, '--port', '--demo', '--open', '--limit', '--query']

/**
 * A command's flag with no command (`caduceus --dry-run`): refused, exit 2, as upstream's argparse refuses `hermes
 * --dry-run` (unrecognized arguments), naming who takes it, instead of the usage and success that read as if
 * something had been checked. A flag no command takes is left to the parser's unknown-flag error.
 */
function refuseWithoutCommand(given: readonly string[]): void {
  for (const typed of given) {
    const flag = CANONICAL[typed] ?? typed
    const others = NO_COMMAND.includes(flag) ? [] : takenBy(flag)
    if (others.length)
      throw new UsageError(
        `${typed} needs a command (${others.join(', ')} ${others.length === 1 ? 'takes' : 'take'} it); see caduceus --help`
      )
  }
}

/** Flags a verb takes only to refuse them with its own reason (export-cli.ts, cron.ts): never named as taken. */
const EXPLAINS: Record<string, readonly string[]> = { 'sessions export': ARCHIVED }
/** Aliases left out of the hint (`cron add` is create). */
const ALIASES = new Set(['cron add', 'cron rm', 'cron delete'])

/** Other spellings of a flag, as the table names it. */
const CANONICAL: Record<string, string> = { '-p': '--profile', '-y': '--yes', '--session': '--session-id' }

/** The commands (`serve`: all its verbs) and verbs (`sessions export`) that take `flag`, for the refusal's hint. */
function takenBy(flag: string): string[] {
  const out: string[] = []
  for (const [command, verbs] of Object.entries(TAKES)) {
    const all = Object.entries(verbs)
    const having = all.filter(([, flags]) => flags.includes(flag))
    if (having.length === all.length) out.push(command)
    else out.push(...having.filter(([verb]) => verb !== '').map(([verb]) => `${command} ${verb}`))
  }
  return out.filter((name) => !ALIASES.has(name))
}

/**
 * Refuses (UsageError: exit 2, nothing run) the first of `given` (flags as typed, without `=value`) that the
 * command on the line does not take. No command (the app's own argv) or one the table does not know: nothing to judge.
 */
export function refuseForeignFlags(positionals: readonly string[], given: readonly string[]): void {
  const [command, verb = ''] = positionals
  if (command === undefined) return refuseWithoutCommand(given)
  const verbs = TAKES[command]
  if (!verbs) return
  // a command without verbs (serve, api) reads no verb: its words are its own to refuse
  const takes = Object.keys(verbs).length === 1 ? verbs[''] : verbs[verb]
  if (!takes) return
  const name = Object.keys(verbs).length === 1 || verb === '' ? command : `${command} ${verb}`
  for (const typed of given) {
    const flag = CANONICAL[typed] ?? typed
    if (GLOBAL.includes(flag) || takes.includes(flag) || EXPLAINS[name]?.includes(flag)) continue
    const others = takenBy(flag)
    throw new UsageError(
      `${name} does not take ${typed}${others.length ? ` (${others.join(', ')} ${others.length === 1 ? 'does' : 'do'})` : ''}; see caduceus ${name} --help`
    )
  }
}
