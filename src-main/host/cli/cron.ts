/**
 * `caduceus cron ...` on a profile's `cron/jobs.json` (hermes-channels §3). Edits need no host; `cron run`
 * builds one in this process and exits once the `cron` session and the output file exist.
 */
import {
  createJob,
  editJob,
  jobDto,
  readJobs,
  removeJob,
  runCronJob,
  runJobNow,
  setPaused,
  type RawJob
} from '../../cron'
import { discoverProfiles } from '../../store'
import type { HostArgs } from './args'
import { createTurnHost, resolveRoot } from '../compose'
import { missingKeyReason } from './preflight'
import { profileOf } from './profile'
import { errorMessage } from '@shared/contract/errors'

const USAGE = `caduceus cron list [--all] [--json]   (paused and finished jobs only with --all, as hermes cron list)
caduceus cron create|add SCHEDULE PROMPT [--name N] [--repeat N] [--model M] [--deliver TARGET] [--json]
caduceus cron edit ID [--schedule S] [--prompt P] [--name N] [--repeat N] [--model M] [--deliver TARGET] [--json]
caduceus cron pause|resume|remove|rm|delete|run ID   (cron alone: list)
  (ID: a job's id, or its name as upstream's cron commands accept it; all with [--home DIR] [--profile P]; SCHEDULE: "30m", "every 2h", "0 9 * * *" or "2026-02-03T14:00")`

function profileHome(args: HostArgs): { profile: string; home: string } {
  const profile = profileOf(args, 'default')
  const entry = discoverProfiles(resolveRoot(args.home).root).find((p) => p.name === profile)
  if (!entry) throw new Error(`Unknown profile: ${profile}`)
  return { profile, home: entry.home }
}

/** One job as upstream's `hermes cron list` names it (a missing name, display or state filled in as upstream reads it). */
const line = (raw: RawJob) => {
  const j = jobDto(raw)
  return `${j.id}  ${j.state.padEnd(9)}  ${j.scheduleDisplay.padEnd(16)}  next ${j.nextRunAt ?? '-'}  last ${j.lastRunAt ?? '-'}${j.lastStatus ? ` (${j.lastStatus})` : ''}  ${j.name}${j.deliver !== 'local' ? `  -> ${j.deliver}` : ''}`
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
        if (!a || !b) throw new Error('cron create needs SCHEDULE and PROMPT')
        const job = await createJob(home, {
          schedule: a,
          prompt: b,
          name: args.name,
          repeat: args.repeat,
          model: args.model,
          deliver: args.deliver
        })
        // the first line as upstream's (`Created job: ID`, which scripts read the id from), then the schedule
        print(
          job,
          () => `Created job: ${job.id}\n  ${String(job.schedule_display)}, next run ${job.next_run_at ?? '-'}`
        )
        return 0
      }
      case 'edit': {
        if (!a) throw new Error('cron edit needs a job id')
        // As `hermes cron edit`: a new schedule schedules a job that is not paused again (a finished one too).
        const job = await editJob(
          home,
          a,
          {
            schedule: args.schedule,
            prompt: args.prompt,
            name: args.name,
            repeat: args.repeat,
            model: args.model,
            deliver: args.deliver
          },
          'rearm'
        )
        print(job, () => line(job))
        return 0
      }
      case 'pause':
      case 'resume': {
        if (!a) throw new Error(`cron ${sub} needs a job id`)
        const job = await setPaused(home, a, sub === 'pause', sub === 'pause' ? 'paused from the CLI' : null)
        // upstream's line (the job's name, then the reference as given), then the job as `cron list` shows it
        print(job, () => `${sub === 'pause' ? 'Paused' : 'Resumed'} job: ${String(job.name ?? a)} (${a})\n${line(job)}`)
        return 0
      }
      case 'remove':
      case 'rm': // upstream's aliases
      case 'delete': {
        if (!a) throw new Error('cron remove needs a job id')
        const job = await removeJob(home, a)
        print(job, () => `Removed job: ${String(job.name ?? a)} (${a})`)
        return 0
      }
      case 'run':
        return await runNow(args, profile, home, a)
      default:
        console.error(USAGE)
        return 2
    }
  } catch (err) {
    console.error(`caduceus cron: ${errorMessage(err)}`)
    return 1
  }
}

async function runNow(args: HostArgs, profile: string, home: string, id: string | undefined): Promise<number> {
  if (!id) throw new Error('cron run needs a job id')
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
    else
      console.log(
        r.status === 'ok'
          ? `ran ${r.jobId}: session ${r.sessionId}, output ${r.outputPath}`
          : `ran ${r.jobId}: ${r.error}`
      )
    for (const w of r.warnings) console.error(`caduceus cron: warning: ${w}`)
    if (r.status !== 'ok') console.error(`caduceus cron: job ${r.jobId} failed: ${r.error}`)
    return r.status === 'ok' ? 0 : 1
  } finally {
    await host.close()
  }
}
