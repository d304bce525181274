// `caduceus logs [errors]`: the tail of the host's log file.
import { existsSync, readFileSync } from 'node:fs'
import type { HostArgs } from './args'
import { logPaths } from '../compose'
import { UsageError } from './run-args'

export function logs(args: HostArgs): number {
  const { errorFile, logFile } = logPaths()
  const [, verb, extra] = args.positionals
  if ((verb !== undefined && verb !== 'errors') || extra !== undefined)
    throw new UsageError(`logs takes only 'errors' (the warnings and errors), not '${extra ?? verb}'`)
  const file = verb === 'errors' ? errorFile : logFile
  if (!existsSync(file)) {
    console.log(`(no log yet at ${file})`)
    return 0
  }
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  if (args.limit !== undefined && args.limit < 1) throw new UsageError('--limit must be a positive integer')
  console.log(lines.slice(-(args.limit ?? 100)).join('\n'))
  return 0
}
