import { readFileSync } from 'node:fs'
import { CaduceusError } from '@shared/contract'
import {
  createJob,
  editJob,
  JobNotFoundError,
  JobsFileError,
  previewRuns,
  cronClock,
  readJobs,
  removeJob,
  ScheduleError,
  setPaused,
  jobDto
} from '../../cron'
import type { Services } from '../services'
import { errorMessage } from '@shared/contract/errors'
import type { ChannelsService } from '../app-channels'
import type { HandlerMap } from '../dispatch'

type ChannelHandlers = Pick<
  HandlerMap,
  | 'channels.status'
  | 'channels.apiServer'
  | 'cron.list'
  | 'cron.preview'
  | 'cron.create'
  | 'cron.update'
  | 'cron.setPaused'
  | 'cron.remove'
  | 'cron.runNow'
>

/** Cron failures as typed contract errors (the schedule message lists the accepted forms). */
async function typed<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (err instanceof ScheduleError) throw new CaduceusError('invalid_input', err.message, err.field)
    if (err instanceof JobNotFoundError) throw new CaduceusError('not_found', err.message, 'id')
    if (err instanceof JobsFileError) throw new CaduceusError('unavailable', err.message)
    throw err
  }
}

/** The Gateway page's channels and the Cron page (jobs live in each profile's cron/jobs.json). */
export function channelHandlers(s: Services, channels: ChannelsService): ChannelHandlers {
  return {
    'channels.status': () => channels.status(),
    'channels.apiServer': (input) => channels.setApiServer(input),
    'cron.list': ({ profile }) =>
      typed(() => {
        const home = s.homeOf(profile)
        return { jobs: readJobs(home).jobs.map(jobDto), clock: cronClock(home) }
      }),
    'cron.preview': ({ profile, schedule }) => {
      try {
        // In the profile's clock, where the job will run (a naive time means that zone's wall time).
        const { schedule: parsed, runs } = previewRuns(schedule, 5, { timeZone: cronClock(s.homeOf(profile)).zone })
        return { ok: true, display: parsed.display, runs, error: null }
      } catch (err) {
        return { ok: false, display: null, runs: [], error: errorMessage(err) }
      }
    },
    'cron.create': ({ profile, schedule, prompt, name, repeat, model }) =>
      typed(async () =>
        jobDto(await createJob(s.homeOf(profile), { schedule, prompt, name, repeat, model: model || undefined }))
      ),
    'cron.update': ({ profile, id, schedule, prompt, name, model }) =>
      typed(async () => jobDto(await editJob(s.homeOf(profile), id, { schedule, prompt, name, model }, 'keep'))),
    'cron.setPaused': ({ profile, id, paused }) =>
      typed(async () =>
        jobDto(await setPaused(s.homeOf(profile), id, paused, paused ? 'paused from the Cron page' : null))
      ),
    'cron.remove': ({ profile, id }) =>
      typed(async () => {
        await removeJob(s.homeOf(profile), id)
        return { ok: true as const }
      }),
    'cron.runNow': ({ profile, id }) =>
      typed(async () => {
        const r = await channels.runJobNow(profile, id)
        return {
          jobId: r.jobId,
          sessionId: r.sessionId,
          status: r.status,
          error: r.error,
          outputPath: r.outputPath,
          output: readFileSync(r.outputPath, 'utf8'),
          warnings: r.warnings
        }
      })
  }
}
