/**
 * `caduceus …`: each command's module is imported when that command runs, so `run -z` loads the turn's code
 * (compose's turn host, the gateway, the agent) and not the app's request handlers, transports or scheduler.
 */
import { parseArgs, type HostArgs } from './args'
import { redact } from '../log'
import { isOneShot, parseRunArgs, UsageError } from './run-args'
import { helpFor, USAGE, wantsHelp, wantsVersion } from './usage'
import { errorMessage } from '@shared/contract/errors'
import { statIfExists } from '../../files'

/** The sessions verbs that print JSON with --json (export writes JSONL as its own format; optimize and repair text). */
const SESSIONS_JSON = new Set(['list', 'show', 'search', 'import', 'delete', 'rename', 'stats', 'prune', 'archive'])

/** Whether a command prints JSON when asked (`cron`, each of its verbs; memory, logs, serve and api never). */
function offersJson(command: string, verb: string | undefined): boolean {
  if (command === 'cron') return true
  return command === 'sessions' && verb !== undefined && SESSIONS_JSON.has(verb)
}

/** The home (--home, else $HERMES_HOME) when it is there and is not a folder: said as such, before anything opens it. */
function homeNotFolder(flag: string | undefined): string | null {
  const home = flag || process.env.HERMES_HOME
  if (!home) return null
  let st
  try {
    st = statIfExists(home)
  } catch (err) {
    return `the home ${home} cannot be read: ${errorMessage(err)}`
  }
  return st && !st.isDirectory()
    ? `the home ${home} (${flag ? '--home' : '$HERMES_HOME'}) is a file, not a folder`
    : null
}

export async function runCli(argv: string[]): Promise<number> {
  // Asking for help is never an error, whatever else is on the line.
  if (wantsHelp(argv)) {
    console.log(helpFor(argv))
    return 0
  }
  if (wantsVersion(argv)) {
    console.log(`caduceus ${(await import('../compose')).appVersion()}`)
    return 0
  }
  if (isOneShot(argv)) {
    try {
      const notFolder = homeNotFolder(parseRunArgs(argv).home)
      if (notFolder) throw new Error(notFolder)
      return await (await import('./run')).runOneShot(argv)
    } catch (err) {
      console.error(`caduceus run: ${redact(errorMessage(err))}`)
      return 1
    }
  }
  let args: HostArgs
  try {
    args = parseArgs(argv)
  } catch (err) {
    // a flag refused with its reason stands alone; an unknown or malformed one is followed by the usage
    console.error(`caduceus: ${errorMessage(err)}${err instanceof UsageError ? '' : `\n\n${USAGE}`}`)
    return 2
  }
  const [command, verb] = args.positionals
  const notFolder = homeNotFolder(args.home)
  if (notFolder) {
    console.error(`caduceus: ${notFolder}`)
    return 1
  }
  if (args.json && command !== undefined && !offersJson(command, verb)) {
    // a script asking for JSON would otherwise get the text and fail on it, or read nothing
    console.error(`caduceus: ${[command, verb].filter(Boolean).join(' ')} has no --json output`)
    return 2
  }
  try {
    switch (command) {
      case 'serve':
        return await (await import('./serve')).serve(args)
      case 'sessions':
        return await (await import('./sessions')).sessions(args)
      case 'api':
        return await (await import('./api')).runApiServer(args)
      case 'cron':
        return await (await import('./cron')).cron(args)
      case 'memory':
        return await (await import('./memory')).memory(args)
      case 'logs':
        return (await import('./logs')).logs(args)
      case 'profile':
        // upstream's `hermes profile …`: Caduceus only reads profiles; it manages none of them
        console.error(
          'caduceus: there is no profile command; pick one with --profile NAME (-p NAME) on a command, and manage them with `hermes profile list|use|create|…` (Caduceus follows the profile `hermes profile use` makes active)'
        )
        return 2
      case undefined:
        console.log(USAGE)
        return 0
      default:
        console.error(`caduceus: unknown command '${args.positionals[0]}'\n\n${USAGE}`)
        return 2
    }
  } catch (err) {
    console.error(`caduceus: ${redact(errorMessage(err))}`)
    // a flag's text that upstream's argparse refuses (a count that is no number): its usage exit, not a failure
    return err instanceof UsageError ? 2 : 1
  }
}
