import { create } from 'zustand'
import type { CronJob } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'

export interface CronRunView {
  jobId: string
  sessionId: string
  status: 'ok' | 'error'
  error: string | null
  output: string
}

interface CronStore {
  profile: string
  jobs: CronJob[]
  loading: boolean
  /** Job ids with a request in flight (pause, run, remove). */
  busy: Record<string, boolean>
  lastRun: CronRunView | null
}

export const useCron = create<CronStore>()(() => ({
  profile: 'default',
  jobs: [],
  loading: false,
  busy: {},
  lastRun: null
}))

export async function loadCron(profile = useCron.getState().profile): Promise<void> {
  useCron.setState({ profile, loading: true })
  try {
    const { jobs } = await getApi().call('cron.list', { profile })
    if (useCron.getState().profile === profile) useCron.setState({ jobs, loading: false })
  } catch (err) {
    useCron.setState({ loading: false })
    reportError(err, 'Loading cron jobs')
  }
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
    await loadCron()
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
export async function saveCronJob(form: {
  id?: string
  schedule: string
  prompt: string
  name: string
}): Promise<string | null> {
  const profile = useCron.getState().profile
  try {
    if (form.id)
      await getApi().call('cron.update', {
        profile,
        id: form.id,
        schedule: form.schedule,
        prompt: form.prompt,
        name: form.name
      })
    else
      await getApi().call('cron.create', {
        profile,
        schedule: form.schedule,
        prompt: form.prompt,
        ...(form.name.trim() ? { name: form.name } : {})
      })
    await loadCron()
    return null
  } catch (err) {
    return (err as Error).message
  }
}

export async function previewSchedule(
  schedule: string
): Promise<{ ok: boolean; display: string | null; runs: string[]; error: string | null }> {
  return getApi().call('cron.preview', { profile: useCron.getState().profile, schedule })
}
