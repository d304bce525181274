/**
 * `caduceus sessions prune|archive [filters]`, as `hermes sessions prune|archive` behave: the same filter flags
 * (prune-flags.ts), what would change listed first, then a y/N question unless `--yes`; `--dry-run` only lists.
 * Prune deletes (a bare prune: older than 90 days); archive hides and deletes nothing (at least one filter).
 */
import { createInterface } from 'node:readline'
import { CaduceusError, MAX_PRUNE_IDS, type SessionPruneResult } from '@shared/contract'
import type { HostArgs } from './args'
import type { Host } from '../compose'
import { call } from './call'
import { pruneFilter } from './prune-flags'

type Candidates = NonNullable<SessionPruneResult['candidates']>
const VERB = { prune: ['delete', 'deleted'], archive: ['archive', 'archived'] } as const

export async function sessionsByFilter(
  host: Host,
  kind: 'prune' | 'archive',
  profile: string,
  args: HostArgs
): Promise<number> {
  const { dryRun, yes, olderThanDays, archived, includeArchived, ...filter } = pruneFilter(args.prune ?? {}, args.model)
  const [verb, done] = VERB[kind]
  if (args.json && !dryRun && !yes)
    throw new CaduceusError(
      'invalid_input',
      `sessions ${kind} --json ${verb}s only with --yes (or lists with --dry-run)`
    )
  // Archive takes only sessions not yet archived and no implicit cutoff (upstream's archive), so it reads neither.
  // `ids`: the sessions the user was shown and said yes to — a session that began to match while the question was
  // open (it ended, or crossed the age cutoff) is not deleted unseen.
  const run = async (list: boolean, ids?: string[]) =>
    kind === 'prune'
      ? await call(host, 'sessions.prune', {
          profile,
          ...filter,
          olderThanDays,
          archived,
          includeArchived,
          ...(list ? { dryRun: true } : {}),
          ...(ids ? { sessionIds: ids } : {})
        })
      : await call(host, 'sessions.archiveMatching', { profile, ...filter, ...(list ? { dryRun: true } : {}) })
  let shown: string[] | undefined
  if (dryRun || !yes) {
    const r = await run(true)
    if (args.json) {
      console.log(JSON.stringify(r))
      return 0
    }
    const candidates = r.candidates ?? []
    if (!listed(candidates, dryRun, done)) return 0
    const ask = `${verb[0]!.toUpperCase()}${verb.slice(1)} these ${candidates.length} session(s)? [y/N] `
    if (!(await confirm(ask))) {
      console.log('Cancelled.')
      return 0
    }
    if (candidates.length <= MAX_PRUNE_IDS) shown = candidates.map((c) => c.id)
  }
  const r = await run(false, shown)
  // stdout's line starts as upstream's does (`Pruned N session(s).`, `Archived N session(s).`), which scripts read;
  // the detached children, which upstream does not report, are a note on stderr
  if (args.json) console.log(JSON.stringify(r))
  else if (('deleted' in r ? r.deleted : r.archived) === 0) listed([], false, done)
  else if ('deleted' in r) {
    console.log(`Pruned ${r.deleted} session(s).`)
    if (r.detached) console.error(`caduceus: ${r.detached} child session(s) detached (kept, now top-level)`)
  } else console.log(`Archived ${r.archived} session(s). Hidden from the list; nothing was deleted.`)
  return 0
}

/** Lists what would change (all of it for a dry run, the first 15 before asking); false: nothing to ask. */
function listed(candidates: Candidates, dryRun: boolean, done: string): boolean {
  if (!candidates.length) {
    console.log(`No sessions match: nothing ${done}.`) // starts as upstream's line does
    return false
  }
  // Local time, as the ISO dates --before/--after take are read.
  const span = `oldest ${when(candidates[0]!.startedAt)}, newest ${when(candidates.at(-1)!.startedAt)}`
  console.log(`${candidates.length} ended session(s) ${dryRun ? 'would be' : 'will be'} ${done} (${span}):`)
  const shown = dryRun ? candidates : candidates.slice(0, 15)
  for (const c of shown)
    console.log(`  ${c.id}  ${when(c.startedAt)}  ${c.source}  ${c.messageCount} msgs  ${c.title ?? ''}`.trimEnd())
  if (shown.length < candidates.length) console.log(`  … ${candidates.length - shown.length} more`)
  if (dryRun) console.log(`Dry run: nothing ${done}.`)
  return !dryRun
}

const pad = (n: number) => String(n).padStart(2, '0')
/** Local time, minutes (upstream's format_epoch). */
export function when(t: number): string {
  const d = new Date(t * 1000)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/**
 * A y/N question on stdin, as upstream asks it: anything but y/yes (or only the word `accept`, where upstream asks
 * for it typed out) is a no, and so are no answer at all (EOF: a script or cron job, told how to go on) and Ctrl-C.
 */
export async function confirm(question: string, accept?: string): Promise<boolean> {
  process.stdout.write(question)
  const rl = createInterface({ input: process.stdin, terminal: false })
  let interrupted = false
  const onInt = () => {
    interrupted = true
    rl.close()
  }
  process.once('SIGINT', onInt)
  try {
    const line = await new Promise<string | null>((answer) => {
      rl.once('line', answer)
      rl.once('close', () => answer(null))
    })
    if (line === null) {
      process.stdout.write('\n')
      if (!interrupted) console.error('No answer on stdin: pass --yes to go on without asking.')
    }
    return line !== null && (accept ? [accept] : ['y', 'yes']).includes(line.trim().toLowerCase())
  } finally {
    process.off('SIGINT', onInt)
    rl.close()
  }
}
