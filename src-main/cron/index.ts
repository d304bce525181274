/**
 * cron/ — per-profile cron jobs on `<home>/cron/jobs.json` (hermes-channels §3): the schedule grammar,
 * locked atomic job edits that keep unknown fields, one run as a stateless `cron` turn with its output
 * file, and the in-host scheduler that claims due jobs before running them.
 */
export { previewRuns, ScheduleError } from './schedule'
export { readJobs, JobsFileError, type RawJob } from './jobs-file'
export { createJob, editJob, setPaused, removeJob, JobNotFoundError } from './jobs'
export { runCronJob } from './run-job'
export { cronClock } from './time-zone'
export { CronScheduler } from './scheduler'
export { runJobNow } from './run-now'
export { jobDto } from './job-view'
