// `caduceus logs [errors]`: the tail of the host's log file.
import { existsSync, readFileSync } from 'node:fs'
import type { HostArgs } from './args'
import { logPaths } from '../compose'

export function logs(args: HostArgs): number {
  const { errorFile, logFile } = logPaths()
  const file = args.positionals[1] === 'errors' ? errorFile : logFile
  if (!existsSync(file)) {
    console.log(`(no log yet at ${file})`)
    return 0
  }
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  if (args.limit !== undefined && args.limit < 1) throw new Error('--limit must be a positive integer')
  console.log(lines.slice(-(args.limit ?? 100)).join('\n'))
  return 0
}
