/**
 * `caduceus sessions export|import|delete|prune`: export streams to stdout (one record at a time, honouring
 * backpressure); import reads upstream JSONL; delete/prune go through the same contract requests as the UI.
 */
import { readFileSync, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import {
  CaduceusError,
  MAX_IMPORT_BYTES,
  type SessionPruneResult,
  type RequestInput,
  type RequestName,
  type RequestOutput
} from '@shared/contract'
import type { HostArgs } from './args'
import type { Host } from '../compose'
import { exportChunks, exportFormat } from '../services'
import { pruneFilter } from './prune-flags'

async function call<K extends RequestName>(host: Host, name: K, input: RequestInput<K>): Promise<RequestOutput<K>> {
  const result = await host.dispatcher.invoke(name, input)
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.output as RequestOutput<K>
}

/** Lists what a prune would delete (all of it for a dry run, the first 15 before asking); false: nothing to ask. */
function confirmable(candidates: NonNullable<SessionPruneResult['candidates']>, dryRun: boolean): boolean {
  if (!candidates.length) {
    console.log('No ended session matches: nothing to prune.')
    return false
  }
  // Local time, as the ISO dates --before/--after take are read.
  const span = `oldest ${when(candidates[0]!.startedAt)}, newest ${when(candidates.at(-1)!.startedAt)}`
  console.log(`${candidates.length} ended session(s) ${dryRun ? 'would be' : 'will be'} deleted (${span}):`)
  const shown = dryRun ? candidates : candidates.slice(0, 15)
  for (const c of shown)
    console.log(`  ${c.id}  ${when(c.startedAt)}  ${c.source}  ${c.messageCount} msgs  ${c.title ?? ''}`.trimEnd())
  if (shown.length < candidates.length) console.log(`  … ${candidates.length - shown.length} more`)
  if (dryRun) console.log('Dry run: nothing deleted.')
  return !dryRun
}

const pad = (n: number) => String(n).padStart(2, '0')
function when(t: number): string {
  const d = new Date(t * 1000)
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/**
 * A y/N question on stdin, as upstream asks it: anything but y/yes is a no, and so are no answer at all (EOF: a
 * script or cron job, told how to go on) and Ctrl-C.
 */
async function confirm(question: string): Promise<boolean> {
  process.stdout.write(question)
  const rl = createInterface({ input: process.stdin, terminal: false })
  let interrupted = false
  const onInt = () => {
    interrupted = true
    rl.close()
  }
  process.once('SIGINT', onInt)
  try {
    const line = await new Promise<string | null>((done) => {
      rl.once('line', done)
      rl.once('close', () => done(null))
    })
    if (line === null) {
      process.stdout.write('\n')
      if (!interrupted) console.error('No answer on stdin: pass --yes to prune without asking.')
    }
    return line !== null && ['y', 'yes'].includes(line.trim().toLowerCase())
  } finally {
    process.off('SIGINT', onInt)
    rl.close()
  }
}

async function write(chunk: string): Promise<void> {
  if (!process.stdout.write(chunk)) await new Promise<void>((r) => process.stdout.once('drain', () => r()))
}

/** Returns the exit code, or null when `sub` is not an admin subcommand. */
export async function sessionAdminCli(
  host: Host,
  sub: string | undefined,
  arg: string | undefined,
  args: HostArgs
): Promise<number | null> {
  const profile = args.profile ?? 'default'
  const a = args.admin ?? {}
  if (sub === 'export') {
    if (a.only !== undefined && a.only !== 'user-prompts')
      throw new Error(`unknown --only '${a.only}': use user-prompts`)
    const format = exportFormat(a.format)
    const store = host.stores.get(profile)
    for (const chunk of exportChunks(store, {
      format,
      onlyUserPrompts: a.only === 'user-prompts',
      lineage: a.lineage,
      sessionId: a.session
    }))
      await write(chunk)
    return 0
  }
  if (sub === 'import') {
    if (!arg) throw new Error('sessions import needs a FILE (upstream JSONL)')
    if (statSync(arg).size > MAX_IMPORT_BYTES)
      throw new CaduceusError('invalid_input', `import is larger than ${MAX_IMPORT_BYTES} bytes`)
    const summary = await call(host, 'sessions.import', { profile, content: readFileSync(arg, 'utf8') })
    if (args.json) console.log(JSON.stringify(summary))
    else {
      console.log(
        `imported ${summary.imported}, skipped ${summary.skipped} (already present), detached ${summary.detached} (orphans), rejected ${summary.errors.length}`
      )
      for (const e of summary.errors) console.log(`  ${e.line ? `line ${e.line}` : e.id}: ${e.reason}`)
      const ignored = Object.entries(summary.ignoredFields ?? {})
      if (ignored.length) console.log(`ignored fields: ${ignored.map(([k, n]) => `${k} (${n})`).join(', ')}`)
    }
    return 0
  }
  if (sub === 'delete') {
    if (!arg) throw new Error('sessions delete needs a session id')
    const r = await call(host, 'sessions.delete', { profile, sessionId: arg })
    if (!r.deleted) throw new Error(`not_found: no session '${arg}' in profile '${profile}'`)
    console.log(
      args.json
        ? JSON.stringify(r)
        : `deleted ${arg}${r.detachedChildren ? ` (${r.detachedChildren} child session(s) detached)` : ''}`
    )
    return 0
  }
  if (sub === 'prune') {
    const { dryRun, yes, ...filter } = pruneFilter(args.prune ?? {}, args.model)
    if (args.json && !dryRun && !yes)
      throw new CaduceusError(
        'invalid_input',
        'sessions prune --json deletes only with --yes (or lists with --dry-run)'
      )
    if (dryRun || !yes) {
      const r = await call(host, 'sessions.prune', { profile, ...filter, dryRun: true })
      if (args.json) {
        console.log(JSON.stringify(r))
        return 0
      }
      const candidates = r.candidates ?? []
      if (!confirmable(candidates, dryRun)) return 0
      if (!(await confirm(`Delete these ${candidates.length} session(s)? [y/N] `))) {
        console.log('Cancelled: nothing deleted.')
        return 0
      }
    }
    const r = await call(host, 'sessions.prune', { profile, ...filter })
    console.log(
      args.json
        ? JSON.stringify(r)
        : `pruned ${r.deleted} ended session(s)${r.detached ? `, ${r.detached} child session(s) detached` : ''}`
    )
    return 0
  }
  return null
}
