/**
 * One cron run: a stateless-channel turn (seed 003: delegation inline, no terminal notify) recorded as a
 * `source = 'cron'` session, its reply written to `cron/output/<job_id>/<timestamp>.md`, and the job's
 * last_* fields (and repeat count, for scheduled runs) updated under the jobs.json lock.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TURN_CHANNELS, type ChannelTurnInput, type ChannelTurnResult } from '../gateway'
import { cronDir, updateJobs, type RawJob } from './jobs-file'
import { completedOf, timesOf } from './jobs'
import { isoWithOffset } from './schedule'

export interface CronGateway {
  runChannelTurn(input: ChannelTurnInput): Promise<ChannelTurnResult>
}

export interface CronRunResult {
  jobId: string
  sessionId: string
  status: 'ok' | 'error'
  error: string | null
  outputPath: string
  reply: string
}

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '_')

export function outputDir(home: string, jobId: string): string {
  return join(cronDir(home), 'output', jobId)
}

export async function runCronJob(
  gateway: CronGateway,
  profile: string,
  home: string,
  job: RawJob,
  opts: { now?: () => number; scheduled?: boolean } = {}
): Promise<CronRunResult> {
  const now = opts.now ?? Date.now
  const started = now()
  const sessionId = `cron_${job.id}_${stamp(started)}`
  let result: ChannelTurnResult | null = null
  let error: string | null = null
  try {
    const field = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)
    // The job's own model / provider / endpoint (upstream job fields) win over the profile's.
    const model = field(job.model)
    result = await gateway.runChannelTurn({
      profile,
      channel: TURN_CHANNELS.cron,
      text: String(job.prompt ?? ''),
      sessionId,
      model,
      provider: field(job.provider),
      baseUrl: field(job.base_url)
    })
    if (result.status !== 'completed') error = result.error || `turn ${result.status}`
  } catch (err) {
    error = (err as Error).message
  }
  const reply = result?.reply ?? ''
  const dir = outputDir(home, job.id)
  mkdirSync(dir, { recursive: true })
  const outputPath = join(dir, `${stamp(started)}.md`)
  writeFileSync(
    outputPath,
    [
      `# Cron job: ${String(job.name ?? job.id)}`,
      '',
      `- Job: ${job.id}`,
      `- Schedule: ${String(job.schedule_display ?? '')}`,
      `- Ran at: ${isoWithOffset(started)}`,
      `- Session: ${result?.sessionId ?? sessionId}`,
      `- Status: ${error ? 'error' : 'ok'}`,
      '',
      '## Prompt',
      '',
      String(job.prompt ?? ''),
      '',
      '## Response',
      '',
      error ? `Error: ${error}` : reply,
      ''
    ].join('\n')
  )

  await updateJobs(home, (file, changed) => {
    const live = file.jobs.find((j) => j.id === job.id)
    if (!live) return // removed while it ran: nothing to record
    // last_session_id is Caduceus's own addition (kept by upstream as an unknown field): the Cron page opens it.
    Object.assign(live, {
      last_run_at: isoWithOffset(started),
      last_status: error ? 'error' : 'ok',
      last_error: error,
      last_session_id: result?.sessionId ?? sessionId
    })
    if (opts.scheduled) {
      const completed = completedOf(live) + 1
      live.repeat = { ...((live.repeat as object | null) ?? {}), times: timesOf(live), completed }
      const times = timesOf(live)
      const onceDone = (live.schedule as { kind?: string } | null)?.kind === 'once'
      if ((times !== null && completed >= times) || onceDone)
        Object.assign(live, { state: 'completed', enabled: false, next_run_at: null })
    }
    changed()
  })
  return {
    jobId: job.id,
    sessionId: result?.sessionId ?? sessionId,
    status: error ? 'error' : 'ok',
    error,
    outputPath,
    reply
  }
}
