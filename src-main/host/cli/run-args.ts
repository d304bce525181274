/**
 * `caduceus run -z …` / `caduceus -z …` arguments, parsed like a shell user expects: options anywhere (before or
 * after the words), the remaining words in order are the prompt (friendlier than upstream, which refuses extra
 * words), `--` ends options, `-` (or no words with a pipe on stdin) reads the prompt from stdin. Anything it
 * does not know is a usage error (exit 2, nothing sent), as upstream's argparse does.
 */
export interface RunArgs {
  home?: string
  profile?: string
  model?: string
  json: boolean
  /** Upstream's `--usage-file PATH`: a JSON usage report, written even when the run fails. */
  usageFile?: string
  /** The prompt words joined; null means "read stdin". */
  prompt: string | null
}

export class UsageError extends Error {}

const ONESHOT = (a: string) => a === '-z' || a === '--oneshot' || a.startsWith('--oneshot=')
const VALUE_FLAGS = {
  '--home': 'home',
  '--profile': 'profile',
  '-p': 'profile',
  '--model': 'model',
  '-m': 'model', // upstream's short spelling
  '--usage-file': 'usageFile'
} as const

/** `caduceus run …`, or upstream's top-level `caduceus -z …` (the -z anywhere before `--`, no other command). */
export function isOneShot(argv: string[]): boolean {
  if (argv[0] === 'run') return true
  const end = argv.indexOf('--')
  const opts = end < 0 ? argv : argv.slice(0, end)
  return (
    opts.some(ONESHOT) &&
    !opts.some((a) => /^[a-z]/.test(a) && ['serve', 'sessions', 'api', 'cron', 'logs'].includes(a))
  )
}

export function parseRunArgs(argv: string[]): RunArgs {
  const out: RunArgs = { json: false, prompt: null }
  const words: string[] = []
  let stdin = false
  const rest = argv[0] === 'run' ? argv.slice(1) : argv
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === '--') {
      words.push(...rest.slice(i + 1))
      break
    }
    if (arg === '-') {
      stdin = true
      continue
    }
    if (!arg.startsWith('-')) {
      words.push(arg)
      continue
    }
    if (ONESHOT(arg)) {
      if (arg.includes('=')) words.push(arg.slice(arg.indexOf('=') + 1))
      continue
    }
    if (arg === '--json') {
      out.json = true
      continue
    }
    const eq = arg.indexOf('=')
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg
    const key = VALUE_FLAGS[flag as keyof typeof VALUE_FLAGS]
    if (!key) throw new UsageError(`unknown option ${flag} for run`)
    const value = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : rest[++i]
    // `-z --home --json hi` must not take "--json" as the home folder.
    if (value === undefined || value === '' || (value.startsWith('-') && value !== '-'))
      throw new UsageError(`${flag} needs a value`)
    out[key] = value
  }
  if (stdin && words.length) throw new UsageError('give the prompt as words or as - (stdin), not both')
  out.prompt = stdin ? null : words.length ? words.join(' ') : null
  return out
}
