/**
 * `caduceus cron ...` on a profile's `cron/jobs.json` (hermes-channels §3). Edits need no host; `cron run`
 * builds one in this process and exits once the `cron` session and the output file exist.
 */
import {
  createJob,
  CronScheduler,
  editJob,
  jobDto,
  readJobs,
  removeJob,
  runCronJob,
  runJobNow,
  setPaused,
  type RawJob
} from '../../cron'
import { StoreRegistry } from '../../store'
import type { HostArgs } from './args'
import { createTurnHost, resolveRoot } from '../compose'
import { missingKeyReason } from './preflight'
import { profileHome } from './profile'
import { UsageError } from './run-args'
import { CRON_USAGE } from './usage'
import { errorMessage } from '@shared/contract/errors'
import { cronRepeatText } from '@shared/contract'
import { redact } from '../../secrets'

/**
 * One job as upstream's `hermes cron list` names it (a missing name, display or state filled in as upstream reads it),
 * with what it runs beside its prompt as upstream lists it: its skills, script (no agent: the script alone), folder.
 */
const line = (raw: RawJob) => {
  const j = jobDto(raw)
  const repeat = cronRepeatText(j)
  const runs = [
    j.skills.length ? `skills ${j.skills.join(', ')}` : '',
    j.script ? `script ${j.script}${j.noAgent ? ' (no agent)' : ''}` : '',
    j.workdir ? `workdir ${j.workdir}` : ''
  ].filter(Boolean)
  return `${j.id}  ${j.state.padEnd(9)}  ${j.scheduleDisplay.padEnd(16)}  next ${j.nextRunAt ?? '-'}  last ${j.lastRunAt ?? '-'}${j.lastStatus ? ` (${j.lastStatus})` : ''}  ${j.name}${j.deliver !== 'local' ? `  -> ${j.deliver}` : ''}${repeat ? `  repeat ${repeat}` : ''}${runs.map((r) => `  ${r}`).join('')}`
}

export async function cron(args: HostArgs): Promise<number> {
  const [, sub, a, b] = args.positionals
  const print = (v: unknown, text: () => string) => console.log(args.json ? JSON.stringify(v, null, 2) : text())
  try {
    const { profile, home } = profileHome(args)
    switch (sub) {
      case undefined: // `hermes cron` alone lists, as `cron list`
      case 'list': {
        // as `hermes cron list`: a disabled job (paused, or a finished one-shot) only with --all
        const jobs = readJobs(home).jobs.filter((j) => args.all || j.enabled !== false)
        print({ jobs }, () => (jobs.length ? jobs.map(line).join('\n') : '(no cron jobs)'))
        return 0
      }
      case 'create':
      case 'add': {
        // upstream's alias
        // PROMPT may be left out, as upstream's: a job of skills, or a script with --no-agent (createJob says which)
        if (!a) throw new UsageError('cron create needs SCHEDULE (and PROMPT, unless --skill or --script --no-agent)')
        if (args.positionals.length > 4) throw new UsageError(`unexpected argument '${args.positionals[4]}'`)
        const job = await createJob(home, {
          schedule: a,
          prompt: b ?? '',
          name: args.name,
          repeat: args.repeat,
          model: args.model,
          deliver: args.deliver,
          ...args.cronJob
        })
        // the first line as upstream's (`Created job: ID`, which scripts read the id from), then the schedule
        print(
          job,
          () => `Created job: ${job.id}\n  ${String(job.schedule_display)}, next run ${job.next_run_at ?? '-'}`
        )
        return 0
      }
      case 'edit': {
        if (!a) throw new UsageError('cron edit needs a job id')
        // As `hermes cron edit`: a new schedule schedules a job that is not paused again (a finished one too); the
        // skill, script, mode and folder flags change those as its edit does (jobs.ts editJob).
        const edit = {
          schedule: args.schedule,
          prompt: args.prompt,
          name: args.name,
          repeat: args.repeat,
          model: args.model,
          deliver: args.deliver,
          ...args.cronJob
        }
        // nothing given is refused, as upstream's edit refuses it (jobs.json is left as it is)
        if (Object.values(edit).every((v) => v === undefined))
          throw new Error('cron edit: nothing to change (give --schedule, --prompt, --name, a skill flag, ...)')
        const job = await editJob(home, a, edit, 'rearm')
        print(job, () => line(job))
        return 0
      }
      case 'pause':
      case 'resume': {
        if (!a) throw new UsageError(`cron ${sub} needs a job id`)
        const job = await setPaused(home, a, sub === 'pause', sub === 'pause' ? 'paused from the CLI' : null)
        // upstream's line (the job's name, then the reference as given), then the job as `cron list` shows it
        print(job, () => `${sub === 'pause' ? 'Paused' : 'Resumed'} job: ${String(job.name ?? a)} (${a})\n${line(job)}`)
        return 0
      }
      case 'remove':
      case 'rm': // upstream's aliases
      case 'delete': {
        if (!a) throw new UsageError('cron remove needs a job id')
        const job = await removeJob(home, a)
        print(job, () => `Removed job: ${String(job.name ?? a)} (${a})`)
        return 0
      }
      case 'run':
        return await runNow(args, profile, home, a)
      case 'status':
        return status(args, profile, home)
      case 'tick':
        return await tick(args, profile, home)
      default:
        console.error(`caduceus cron: unknown verb '${sub}'\n\n${CRON_USAGE}`)
        return 2
    }
  } catch (err) {
    console.error(`caduceus cron: ${errorMessage(err)}`)
    // a missing ID, SCHEDULE or PROMPT is a usage error, as upstream's argparse exits on it
    return err instanceof UsageError ? 2 : 1
  }
}

/** One run's line: its session (a no-agent script's run has none) and output file, or its error. */
const ranLine = (r: Awaited<ReturnType<typeof runCronJob>>) =>
  r.status === 'ok'
    ? `ran ${r.jobId}: ${r.sessionId ? `session ${r.sessionId}, ` : ''}output ${r.outputPath}`
    : `ran ${r.jobId}: ${r.error}`

async function runNow(args: HostArgs, profile: string, home: string, id: string | undefined): Promise<number> {
  if (!id) throw new UsageError('cron run needs a job id')
  const ref = id.toLowerCase()
  if (!readJobs(home).jobs.some((j) => j.id === id || (typeof j.name === 'string' && j.name.toLowerCase() === ref)))
    throw new Error(`No cron job with id or name ${id}`)
  const reason = missingKeyReason(home)
  if (reason) throw new Error(reason)
  const host = await createTurnHost({ home: args.home })
  try {
    // Claimed and heartbeated in jobs.json as the app's Run now is, so neither the app nor upstream fires it meanwhile.
    const r = await runJobNow(home, id, (claimed) =>
      runCronJob(host.gateway, profile, home, claimed, { vault: host.vault })
    )
    if (args.json)
      console.log(
        JSON.stringify({
          job_id: r.jobId,
          session_id: r.sessionId,
          status: r.status,
          error: r.error,
          output_path: r.outputPath,
          warnings: r.warnings
        })
      )
    else console.log(ranLine(r))
    for (const w of r.warnings) console.error(`caduceus cron: warning: ${w}`)
    if (r.status !== 'ok') console.error(`caduceus cron: job ${r.jobId} failed: ${r.error}`)
    return r.status === 'ok' ? 0 : 1
  } finally {
    await host.close()
  }
}

/** The upstream gateway heartbeating for the profile in its state.db (it runs the jobs then), else null. */
function upstreamGatewayOf(args: HostArgs, profile: string) {
  const stores = new StoreRegistry(resolveRoot(args.home).root) // only reads: no state.db is created
  try {
    return stores.get(profile).upstreamGateway(Date.now() / 1000, profile)
  } catch {
    return null // no heartbeat can be read: as when no upstream gateway runs (the app's scheduler reads it so)
  } finally {
    stores.closeAll()
  }
}

/**
 * `hermes cron status`: who fires the jobs, then upstream's summary (active jobs, the earliest next run as upstream
 * picks it: the least of the stored texts). Caduceus's own scheduler lives in the app and `caduceus serve`, which
 * leave no mark this command could read, so that is said rather than guessed.
 */
function status(args: HostArgs, profile: string, home: string): number {
  const gateway = upstreamGatewayOf(args, profile)
  const active = readJobs(home).jobs.filter((j) => j.enabled !== false)
  const nextRuns = active.map((j) => j.next_run_at).filter((t): t is string => typeof t === 'string' && t !== '')
  const nextRunAt = nextRuns.length ? nextRuns.reduce((a, b) => (b < a ? b : a)) : null
  if (args.json) {
    console.log(JSON.stringify({ profile, upstreamGateway: gateway, activeJobs: active.length, nextRunAt }, null, 2))
    return 0
  }
  const lines = ['']
  if (gateway)
    lines.push(
      `✓ An upstream gateway is running for ${profile} — it fires the cron jobs`,
      `  PID: ${gateway.pid}${gateway.host ? ` on ${gateway.host}` : ''}`,
      "  (Caduceus's scheduler stands down for this profile while it heartbeats.)"
    )
  else
    lines.push(
      `No upstream gateway is running for ${profile}.`,
      "  Caduceus's scheduler fires due jobs while the app or `caduceus serve` is open (this command cannot see",
      '  whether one is); `caduceus cron tick` runs the due jobs once now.'
    )
  lines.push('')
  if (active.length) {
    lines.push(`  ${active.length} active job(s)`)
    if (nextRunAt) lines.push(`  Next run: ${nextRunAt}`)
  } else lines.push('  No active jobs')
  console.log(`${lines.join('\n')}\n`)
  return 0
}

/**
 * `hermes cron tick`: one pass of the app's own scheduler over this profile — the same due scan, claims (under
 * upstream's tick and jobs locks), parallel cap and stand-down for a live upstream gateway — then exit once the jobs
 * it claimed have finished. The turn host is built only when a job is due.
 */
async function tick(args: HostArgs, profile: string, home: string): Promise<number> {
  const turn: { host?: ReturnType<typeof createTurnHost> } = {}
  const results: Array<Awaited<ReturnType<typeof runCronJob>>> = []
  const scheduler = new CronScheduler({
    profiles: () => [{ name: profile, home }],
    run: async (p, job) => {
      turn.host ??= createTurnHost({ home: args.home })
      const h = await turn.host
      const r = await runCronJob(h.gateway, p.name, p.home, job, { vault: h.vault })
      results.push(r)
      return r
    },
    upstreamLive: () => upstreamGatewayOf(args, profile) !== null,
    // the scheduler's lines quote job errors: masked with every open host's secrets (the turn host's among them)
    log: (level, message) => console.error(`caduceus cron: ${level}: ${redact(message)}`)
  })
  try {
    // One tick starts at most the scheduler's parallel cap and leaves the rest due, where `hermes cron tick` runs
    // every job due: tick again until one finds nothing more, each job at most once per command (one due again at
    // once, as `every 0m`, waits for the next command, as upstream's tick runs it once).
    const ran = new Set<string>()
    for (;;) {
      const { ran: now } = await scheduler.tick(ran)
      if (!now.length) break
      for (const id of now) ran.add(id)
    }
  } finally {
    if (turn.host) await (await turn.host).close()
  }
  const standingDown = scheduler.status().standingDown.length > 0
  if (args.json)
    console.log(
      JSON.stringify({
        standing_down: standingDown,
        ran: results.map((r) => ({
          job_id: r.jobId,
          session_id: r.sessionId,
          status: r.status,
          error: r.error,
          output_path: r.outputPath
        }))
      })
    )
  else if (standingDown) console.log(`An upstream gateway is running for ${profile} and fires its jobs; nothing run.`)
  else if (!results.length) console.log('No jobs due.')
  for (const r of results) {
    if (!args.json) console.log(ranLine(r))
    for (const w of r.warnings) console.error(`caduceus cron: warning: ${w}`)
    if (r.status !== 'ok') console.error(`caduceus cron: job ${r.jobId} failed: ${r.error}`)
  }
  return results.every((r) => r.status === 'ok') ? 0 : 1
}
