import { create } from 'zustand'
import { useQuery } from '@tanstack/react-query'
import { getApi } from '../api'
import { reportError } from './toasts'
import { queryClient, requestPrefix, requestQuery } from './server'
import { errorMessage } from '../lib/format'

export interface CronRunView {
  jobId: string
  sessionId: string
  status: 'ok' | 'error'
  error: string | null
  output: string
}

/** The page's view and in-flight actions; the jobs are a query keyed by profile. */
interface CronStore {
  profile: string
  /** Job ids with a request in flight (pause, run, remove). */
  busy: Record<string, boolean>
  lastRun: CronRunView | null
}

export const useCron = create<CronStore>()(() => ({
  profile: 'default',
  busy: {},
  lastRun: null
}))

export const cronQuery = (profile: string) => requestQuery('cron.list', { profile }, 'Loading cron jobs')

/** The jobs of the picked profile and the clock its cron runs on (refetched on mount, after every change made here and when jobs.json changes). */
export function useCronJobs() {
  const profile = useCron((s) => s.profile)
  const q = useQuery(cronQuery(profile))
  return { jobs: q.data?.jobs ?? [], clock: q.data?.clock ?? null, loading: q.isFetching, refresh: q.refetch }
}

export function setCronProfile(profile: string): void {
  useCron.setState({ profile })
}

/** Every cached job list goes stale; the page's refetches. */
const refreshCron = () => queryClient.invalidateQueries({ queryKey: requestPrefix('cron.list') })

/** A profile's jobs.json changed on disk (another process's cron CLI or scheduler, or this host): its list refetches. */
export function applyCronChanged(e: { profile: string }): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: cronQuery(e.profile).queryKey })
}

async function onJob<T>(id: string, what: string, fn: () => Promise<T>): Promise<T | null> {
  useCron.setState((s) => ({ busy: { ...s.busy, [id]: true } }))
  try {
    return await fn()
  } catch (err) {
    reportError(err, what)
    return null
  } finally {
    useCron.setState((s) => ({ busy: { ...s.busy, [id]: false } }))
    await refreshCron()
  }
}

export const setJobPaused = (id: string, paused: boolean) =>
  onJob(id, paused ? 'Pausing the job' : 'Resuming the job', () =>
    getApi().call('cron.setPaused', { profile: useCron.getState().profile, id, paused })
  )

export const removeCronJob = (id: string) =>
  onJob(id, 'Removing the job', () => getApi().call('cron.remove', { profile: useCron.getState().profile, id }))

export async function runCronNow(id: string): Promise<void> {
  const r = await onJob(id, 'Running the job', () =>
    getApi().call('cron.runNow', { profile: useCron.getState().profile, id })
  )
  if (r)
    useCron.setState({
      lastRun: { jobId: r.jobId, sessionId: r.sessionId, status: r.status, error: r.error, output: r.output }
    })
}

/** Create or edit; returns an error message for the form, or null on success. */
/**
 * Create a job, or save an edited one. An edit sends only the fields the user changed from `initial` (what the form
 * opened with): the schedule shown for a job is its display text, and sending it back unchanged would re-read it from
 * now — a one-shot "once in 30m" would move 30 minutes on, a zoned "once at" time would move to the profile's zone,
 * and a recurring job's next run would start over.
 */
export async function saveCronJob(
  form: {
    id?: string
    schedule: string
    prompt: string
    name: string
    model: string
  },
  initial?: { schedule: string; prompt: string; name: string; model: string }
): Promise<string | null> {
  const profile = useCron.getState().profile
  const changed = (k: 'schedule' | 'prompt' | 'name' | 'model') => !initial || form[k] !== initial[k]
  try {
    if (form.id)
      await getApi().call('cron.update', {
        profile,
        id: form.id,
        ...(changed('schedule') ? { schedule: form.schedule } : {}),
        ...(changed('prompt') ? { prompt: form.prompt } : {}),
        ...(changed('name') ? { name: form.name } : {}),
        ...(changed('model') ? { model: form.model.trim() } : {})
      })
    else
      await getApi().call('cron.create', {
        profile,
        schedule: form.schedule,
        prompt: form.prompt,
        ...(form.name.trim() ? { name: form.name } : {}),
        ...(form.model.trim() ? { model: form.model.trim() } : {})
      })
    await refreshCron()
    return null
  } catch (err) {
    return errorMessage(err)
  }
}

export async function previewSchedule(
  schedule: string
): Promise<{ ok: boolean; display: string | null; runs: string[]; error: string | null }> {
  return getApi().call('cron.preview', { profile: useCron.getState().profile, schedule })
}
