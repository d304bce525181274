// The CLI's usage text, in its own module so `caduceus --help` prints it without loading the host.
import { readFileSync } from 'node:fs'
import { isOneShot, parseRunArgs, UsageError } from './run-args'
export const USAGE = `caduceus — dashboard and agent host for Hermes-style agents

  caduceus serve [--home DIR] [--port N] [--demo] [--rotate-token] [--allow-host NAME]...
                                                           headless host: UI + API on 127.0.0.1 (token in the URL;
                                                           kept across restarts, --rotate-token replaces it);
                                                           from another machine: ssh -L 9000:127.0.0.1:PORT SERVER
                                                           and open localhost:9000, or a reverse proxy with TLS
                                                           whose name --allow-host NAME (or CADUCEUS_ALLOW_HOSTS,
                                                           comma-separated) accepts
  caduceus sessions list   [--home DIR] [--profile P] [--source S] [--limit N] [--workspace TEXT] [--children] [--json]
                                                           kanban/tool/oneshot sessions only with --source;
                                                           the 20 most recent unless --limit (as hermes: 0 none,
                                                           a negative number all);
                                                           --workspace: those of them whose git root (else cwd)
                                                           contains TEXT
  caduceus sessions show   <id> [--home DIR] [--profile P] [--json]
  caduceus sessions search <text> [--home DIR] [--profile P] [--limit N] [--children] [--json]
                                                           as upstream's list: child sessions only with --children
  caduceus sessions export [OUTPUT|-] [--session-id ID|PREFIX]... [prune's filters] [--dry-run] [--only user-prompts]
                           [--format jsonl|markdown|md|qmd|html|trace] [--lineage single|logical] [--redact]
                           [--no-redact] [--force] [--delete-after-verified --yes] [--profile P] [--home DIR]
                           as hermes sessions export: OUTPUT a file, - or none stdout; no filter: every session;
                           --session-id given more than once: those sessions, in that order, in any format;
                           a filter: the ended sessions it matches, archived too, oldest first (--dry-run lists them);
                           md|qmd: one file per session in OUTPUT (default <profile>/session-exports) + manifest.jsonl;
                           html: one self-contained page for the whole selection;
                           trace: Claude Code JSONL for a trace viewer, secrets masked unless --no-redact; the
                           --session-id session, else the last used, else a filter's (more than one: OUTPUT is a
                           folder of <id>.trace.jsonl); --upload/--public (Hugging Face) are refused
  caduceus sessions import FILE [--profile P] [--home DIR] [--json]
  caduceus sessions delete ID|PREFIX [--yes|-y] [--json] [--profile P] [--home DIR]
                           an exact id or a unique prefix; asks before deleting unless --yes (--json needs --yes)
  caduceus sessions rename ID|PREFIX TITLE... [--json] [--profile P] [--home DIR]
                           sets the title (the words joined by spaces; blank clears it), as hermes sessions rename
  caduceus sessions stats  [--json] [--profile P] [--home DIR]
                           sessions not archived, messages, per-source counts and the file's size (hermes's lines)
  caduceus sessions prune  [--older-than T] [--newer-than T] [--before T] [--after T] [--source S] [--title TEXT]
                           [--end-reason R] [--cwd DIR] [--model TEXT] [--provider P] [--user ID] [--chat-id ID]
                           [--chat-type T] [--branch TEXT]
                           [--min-/--max-messages N] [--min-/--max-tokens N] [--min-/--max-cost USD]
                           [--min-/--max-tool-calls N] [--include-archived|--archived|--no-archived] [--dry-run]
                           [--yes|-y] [--profile P] [--home DIR]
                           ended sessions only; T = 5h, 2d, 1w, N days or an ISO date; with no flag at all, those
                           started over 90 days ago, while any filter drops that cutoff (as hermes sessions prune);
                           archived sessions are kept unless --include-archived (both) or --archived (only them);
                           lists them and asks before deleting unless --yes
  caduceus sessions archive [the same filters] [--dry-run] [--yes|-y] [--profile P] [--home DIR]
                           hides the ended, not yet archived sessions they match (nothing deleted); at least one
                           filter, no implicit cutoff (as hermes sessions archive)
  caduceus sessions optimize [--profile P] [--home DIR]
                           merges the FTS indexes' segments and VACUUMs state.db (no data changes), as hermes's
  caduceus sessions repair [--check-only] [--profile P] [--home DIR]
                           checks state.db as hermes sessions repair does; never changes it: upstream's repair
                           rebuilds the FTS indexes, which only upstream's SQLite may do (NUL-holding rows), so
                           an unhealthy file is named and \`hermes sessions repair\` left to do it
  caduceus run -z PROMPT… [--home DIR] [--profile P] [--model|-m M] [--json] [--usage-file PATH]
                                                           one stateless turn; prints the reply. Options go before
                                                           or after the words; -- ends options; - reads stdin
  caduceus -z PROMPT…                                      the same (upstream's spelling)
  caduceus api [--home DIR] [--profile P] [--host H] [--port N]   OpenAI-compatible API server (default 127.0.0.1:8642)
  caduceus cron list|create|edit|pause|resume|remove|run ...  per-profile cron jobs (caduceus cron alone: list)
  caduceus cron status                                      who fires the jobs (an upstream gateway?), the next run
  caduceus cron tick                                        run the due jobs once, as the app's scheduler would
  caduceus memory [status]                                  the external memory provider config.yaml names
  caduceus memory setup PROVIDER | off                      activate a provider (not interactive: named here, as
                                                           hermes memory setup PROVIDER) | built-in memory only
  caduceus memory reset [--target all|memory|user] [--yes]  erase MEMORY.md / USER.md (asks unless --yes)
  caduceus memory pending | approve|reject ID|all           the agent's writes staged for approval: list,
                                                            apply or drop them (hermes: /memory pending)
  caduceus logs errors [--limit N]                          recent warnings and errors (memory refusals land here)
  caduceus --version | -V                                   the version
  caduceus --help | -h                                      this text

  DIR (--home, else $HERMES_HOME, else ~/.hermes) is a Hermes root, or a profile's folder <root>/profiles/<name>.
  Without --profile (-p) a command acts on that profile, else on the one <root>/active_profile names (as hermes does),
  else on default (list and search: on every profile).
`

/** `caduceus cron`'s own lines, in more detail than the overview's (its --help, and an unknown verb's answer). */
export const CRON_USAGE = `caduceus cron list [--all] [--json]   (paused and finished jobs only with --all, as hermes cron list)
caduceus cron create|add SCHEDULE [PROMPT] [--name N] [--repeat N] [--model M] [--deliver TARGET] [--json]
    [--skill S]... [--script PATH [--no-agent]] [--workdir DIR]   as hermes cron create: skills to load (PROMPT
    optional with one), a script under <home>/scripts whose output joins the prompt (with --no-agent: the job, its
    output delivered as is, no model), an absolute folder to run in
caduceus cron edit ID [--schedule S] [--prompt P] [--name N] [--repeat N] [--model M] [--deliver TARGET] [--json]
    [--skill S]... [--add-skill S]... [--remove-skill S]... [--clear-skills] [--script PATH] [--no-agent|--agent]
    [--workdir DIR]   as hermes cron edit: --skill replaces the job's skills, --add-skill and --remove-skill change
    them, --clear-skills drops them all; an empty --script or --workdir clears it
caduceus cron pause|resume|remove|rm|delete|run ID   (cron alone: list)
caduceus cron status [--json]   whether an upstream gateway fires the jobs, how many are active, the next run
caduceus cron tick [--json]     run the due jobs once, as the app's scheduler would (same claims and locks), and exit
  (ID: a job's id, or its name as upstream's cron commands accept it; all with [--home DIR] [--profile P]; SCHEDULE: "30m", "every 2h", "0 9 * * *" or "2026-02-03T14:00";
  --accept-hooks is taken and changes nothing: Caduceus runs no shell hooks)`

/**
 * What `--help` prints for the command line it is on, as argparse prints a subcommand's own help: the overview's
 * entries for that command (for one verb when it has its own: `sessions export --help`), then the note on DIR and
 * profiles; cron's detailed lines for cron; the whole overview for no command or one that does not exist.
 */
export function helpFor(argv: string[]): string {
  const end = argv.indexOf('--')
  const words = (end < 0 ? argv : argv.slice(0, end)).filter((w) => !w.startsWith('-'))
  const lines = USAGE.split('\n')
  const blocks: string[][] = []
  let i = lines.findIndex((l) => l.startsWith('  caduceus '))
  for (; i < lines.length && lines[i] !== ''; i++)
    if (lines[i]!.startsWith('  caduceus ')) blocks.push([lines[i]!])
    else blocks.at(-1)!.push(lines[i]!)
  const footer = lines.slice(i).join('\n')
  const cmdIndex = words.findIndex((w) => blocks.some((b) => b[0]!.split(/\s+/)[2] === w))
  // upstream's spelling of a one-shot (`caduceus -z … --help`) is `run`'s
  if (cmdIndex < 0 && !isOneShot(argv)) return USAGE
  const cmd = cmdIndex < 0 ? 'run' : words[cmdIndex]!
  if (cmd === 'cron') return CRON_USAGE
  const ofCmd = blocks.filter((b) => b[0]!.split(/\s+/)[2] === cmd)
  const verb = words[cmdIndex + 1]
  const ofVerb = ofCmd.filter((b) => verb !== undefined && b[0]!.split(/\s+/)[3]?.split('|').includes(verb))
  return `${lines[0]}\n\n${(ofVerb.length ? ofVerb : ofCmd).flat().join('\n')}\n${footer}`
}

/** `caduceus --version`, `-V` or `version` (first on the line), as upstream's `hermes` takes them. */
export function wantsVersion(argv: string[]): boolean {
  return ['--version', '-V', 'version'].includes(argv[0] ?? '')
}

/** Asking for help is never an error, whatever else is on the line. */
export function wantsHelp(argv: string[]): boolean {
  // After `--` everything is prompt text (`run -z -- -h` sends "-h").
  const end = argv.indexOf('--')
  const opts = end < 0 ? argv : argv.slice(0, end)
  return opts.includes('--help') || opts.includes('-h') || argv[0] === 'help'
}

/**
 * A one-shot's usage error, found before the host loads (bin/caduceus.mjs exits 2 with it at once, nothing sent);
 * null when the line is not a one-shot or parses.
 */
export function oneShotUsageError(argv: string[]): string | null {
  if (wantsHelp(argv) || !isOneShot(argv)) return null
  try {
    parseRunArgs(argv)
    return null
  } catch (err) {
    return err instanceof UsageError ? `caduceus run: ${err.message}` : null
  }
}

/**
 * The first of the process's last `count` arguments whose bytes are not UTF-8, as a one-line refusal; null when all
 * are. Node hands argv over as strings with every such byte already replaced by U+FFFD, so `--home` would name
 * another folder and a title or a prompt would be stored changed (upstream's Python keeps the bytes and refuses them
 * where they are used); the bytes are read where the kernel keeps them (`/proc/self/cmdline`, Linux). Without that
 * file nothing is refused: a U+FFFD typed on purpose cannot be told from a replaced byte.
 */
export function nonUtf8Argument(count: number): string | null {
  let raw: Buffer
  try {
    raw = readFileSync('/proc/self/cmdline')
  } catch {
    // no /proc (macOS, Windows): the bytes cannot be had, so nothing is refused
    return null
  }
  const words: Buffer[] = []
  for (let start = 0; start < raw.length;) {
    const end = raw.indexOf(0, start)
    words.push(raw.subarray(start, end < 0 ? raw.length : end))
    start = end < 0 ? raw.length : end + 1
  }
  const args = count > 0 ? words.slice(-count) : []
  const strict = new TextDecoder('utf-8', { fatal: true })
  for (const [i, word] of args.entries()) {
    try {
      strict.decode(word)
    } catch {
      // the strict decoder throws only for bytes that are not UTF-8: this argument is refused
      return `caduceus: argument ${i + 1} (${JSON.stringify(word.toString('utf8'))}) is not UTF-8 text; give it in UTF-8`
    }
  }
  return null
}
