import { z } from 'zod'
import { ProfileName } from './common'

/** One channel a turn can arrive on, and whether it can deliver a background completion afterwards (seed 003). */
export const ChannelInfo = z.object({ platform: z.string(), asyncDelivery: z.boolean() })

export const ChannelsStatus = z.object({
  deskChat: ChannelInfo,
  apiServer: ChannelInfo.extend({
    running: z.boolean(),
    url: z.string().nullable(),
    profile: z.string().nullable(),
    keySet: z.boolean(),
    requests: z.number().int(),
    error: z.string().nullable()
  }),
  cron: ChannelInfo.extend({
    enabled: z.boolean(),
    /** Profiles whose jobs an upstream gateway runs right now (this scheduler stands down for them). */
    standingDown: z.array(z.string()),
    jobsDue: z.number().int(),
    jobsTotal: z.number().int(),
    running: z.number().int(),
    lastTickAt: z.number().nullable()
  })
})
export type ChannelsStatus = z.infer<typeof ChannelsStatus>

export const ApiServerToggle = z.object({
  enabled: z.boolean(),
  profile: ProfileName.default('default'),
  port: z.number().int().min(0).max(65535).optional()
})

/** A cron job as the Cron page shows it (upstream field names; unknown fields stay in jobs.json). */
export const CronJob = z.object({
  id: z.string(),
  name: z.string(),
  prompt: z.string(),
  scheduleDisplay: z.string(),
  state: z.string(),
  enabled: z.boolean(),
  nextRunAt: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  lastStatus: z.string().nullable(),
  lastError: z.string().nullable(),
  repeatTimes: z.number().int().nullable(),
  repeatCompleted: z.number().int(),
  /** The model the job pins; null when it follows the profile's model settings. */
  model: z.string().nullable(),
  /** Where upstream's gateway sends the output (`local`, `origin`, `telegram:123`, comma-separated). */
  deliver: z.string(),
  /** Why the latest run's output did not reach `deliver` (this app keeps output locally); null when it did. */
  lastDeliveryError: z.string().nullable(),
  /** The session of the latest run (if it is stored). */
  lastSessionId: z.string().nullable(),
  /** What the latest run warned about (kept on the job; its output file keeps upstream's layout); empty when nothing. */
  lastWarnings: z.array(z.string()),
  /** The skills the job loads before its prompt (upstream's `skills`, else an older writer's `skill`). */
  skills: z.array(z.string()),
  /** The script the job runs first (its output goes into the prompt), or is (`noAgent`: no model, output as is). */
  script: z.string().nullable(),
  noAgent: z.boolean(),
  /** The folder the job's tools run in; null: none set. */
  workdir: z.string().nullable()
})
export type CronJob = z.infer<typeof CronJob>

/**
 * The clock a profile's cron runs on (upstream's hermes_time: HERMES_TIMEZONE, else config.yaml `timezone`, else the
 * home machine's zone): the zone the Cron page shows times in, and where it comes from.
 */
export const CronClock = z.object({
  zone: z.string(),
  source: z.enum(['HERMES_TIMEZONE', 'config.yaml', 'machine'])
})
export type CronClock = z.infer<typeof CronClock>

/**
 * A job's run limit as upstream's `hermes cron list` shows it: runs so far of the limit (`1/3`; upstream removes the
 * job after the last), null for a job with none (upstream's ∞).
 */
export function cronRepeatText(j: Pick<CronJob, 'repeatTimes' | 'repeatCompleted'>): string | null {
  return j.repeatTimes ? `${j.repeatCompleted}/${j.repeatTimes}` : null
}

const JobRef = z.object({ profile: ProfileName, id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a cron job id') })
const ScheduleText = z.string().trim().min(1, 'give a schedule').max(200)
const PromptText = z.string().trim().min(1, 'give a prompt').max(20_000)
/** Upstream's cron takes a name of any length; this bound only keeps a request small, far past any name typed. */
const JobName = z.string().max(2000, 'a job name is at most 2,000 characters')

export const CronPreview = z.object({
  ok: z.boolean(),
  display: z.string().nullable(),
  runs: z.array(z.string()),
  error: z.string().nullable()
})
export const CronRunResult = z.object({
  jobId: z.string(),
  sessionId: z.string(),
  status: z.enum(['ok', 'error']),
  error: z.string().nullable(),
  outputPath: z.string(),
  output: z.string(),
  warnings: z.array(z.string())
})

export const channelRequests = {
  /** Channels of this app: desk chat, the in-app API server, the cron scheduler. */
  'channels.status': { input: z.object({}).strict().default({}), output: ChannelsStatus },
  /** Run (or stop) the OpenAI-compatible API server inside the app for one profile. */
  'channels.apiServer': { input: ApiServerToggle, output: ChannelsStatus },
  /** Cron jobs of one profile. */
  'cron.list': {
    input: z.object({ profile: ProfileName }),
    output: z.object({ jobs: z.array(CronJob), clock: CronClock })
  },
  /** Validate a schedule and preview its next run times. */
  'cron.preview': { input: z.object({ profile: ProfileName, schedule: z.string().max(200) }), output: CronPreview },
  'cron.create': {
    input: z.object({
      profile: ProfileName,
      schedule: ScheduleText,
      prompt: PromptText,
      name: JobName.optional(),
      repeat: z.number().int().min(1).nullable().optional(),
      /** A model to pin; left out (or '') the job follows the profile's model settings. */
      model: z.string().trim().max(200).optional()
    }),
    output: CronJob
  },
  'cron.update': {
    input: JobRef.extend({
      schedule: ScheduleText.optional(),
      prompt: PromptText.optional(),
      name: JobName.optional(),
      /** The model to pin ('' to follow the profile's model settings again). */
      model: z.string().trim().max(200).optional()
    }),
    output: CronJob
  },
  'cron.setPaused': { input: JobRef.extend({ paused: z.boolean() }), output: CronJob },
  'cron.remove': { input: JobRef, output: z.object({ ok: z.literal(true) }) },
  /** Run a job now (a stateless cron turn); resolves when its session and output file exist. */
  'cron.runNow': { input: JobRef, output: CronRunResult }
} as const
