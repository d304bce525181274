import { useEffect, useId, useRef, useState } from 'react'
import type { CronClock, CronJob } from '@shared/contract'
import { previewSchedule, saveCronJob } from '../../stores/cron'
import { whenOnClock } from './cron-time'

/**
 * Create (no job) or edit a job; the schedule is validated as you type, with its next runs. `gone`: the job left
 * jobs.json while the form was open (another program removed it): untouched, the form closes; with edits typed, it
 * keeps them and says so, and saving creates the job anew.
 */
export function CronJobForm({
  job,
  clock = null,
  gone = false,
  onDone
}: {
  job: CronJob | null
  /** The zone the home's cron runs in: the preview's times are shown in it. */
  clock?: CronClock | null
  gone?: boolean
  onDone: () => void
}) {
  // What the form opened with: an edit saves only the fields changed from it (saveCronJob).
  const [initial] = useState(() => ({
    schedule: job?.scheduleDisplay.replace(/^once (in|at) /, '') ?? '',
    prompt: job?.prompt ?? '',
    name: job?.name ?? '',
    model: job?.model ?? ''
  }))
  const [schedule, setSchedule] = useState(initial.schedule)
  const [prompt, setPrompt] = useState(initial.prompt)
  const [name, setName] = useState(initial.name)
  const [model, setModel] = useState(initial.model)
  const [preview, setPreview] = useState<{ ok: boolean; runs: string[]; error: string | null } | null>(null)
  const [error, setError] = useState<string | null>(null)
  // Opened inline (no dialog): focus moves into its first field, and goes back to what opened it (New job, a row's
  // Edit) when it closes, rather than being dropped on the page with the form.
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => {
    const opener = document.activeElement
    first.current?.focus()
    return () => {
      const lost = !document.activeElement || document.activeElement === document.body
      if (lost && opener instanceof HTMLElement && opener.isConnected) opener.focus()
    }
  }, [])
  const [saving, setSaving] = useState(false)
  const headingId = useId()
  // A job that loads skills, or runs its script with no agent, needs no prompt (upstream creates them without one):
  // an empty prompt must not keep such a job's schedule, name or model from being saved.
  const promptOptional = Boolean(job && !gone && (job.skills.length > 0 || (job.noAgent && job.script)))
  const edited =
    schedule !== initial.schedule || prompt !== initial.prompt || name !== initial.name || model !== initial.model
  useEffect(() => {
    if (gone && !edited) onDone()
  }, [gone, edited, onDone])

  // A job's schedule left as it was is not re-read (its display text, from now, is not its runs): no preview for it.
  const scheduleEdited = !job || schedule !== initial.schedule
  useEffect(() => {
    if (!schedule.trim() || !scheduleEdited) return setPreview(null)
    let live = true
    const t = setTimeout(() => {
      previewSchedule(schedule).then(
        (p) => {
          if (live) setPreview(p)
        },
        () => undefined
      )
    }, 200)
    return () => {
      live = false
      clearTimeout(t)
    }
  }, [schedule, scheduleEdited])

  const submit = async (e: React.FormEvent) => {
    e.preventDefault()
    setSaving(true)
    const err = await saveCronJob(
      { id: gone ? undefined : job?.id, schedule, prompt, name, model },
      job && !gone ? initial : undefined
    )
    setSaving(false)
    setError(err)
    if (!err) onDone()
  }

  return (
    <form
      className="cron-form pad"
      onSubmit={(e) => void submit(e)}
      // Escape cancels, as it closes the page's dialogs; focus goes back to what opened the form (above). Enter in a
      // one-line field saves (the form's submit); in the prompt, where Enter is a new line, ⌘/Ctrl+Enter saves — as in
      // Memory's entries, the composer and a follow-up
      onKeyDown={(e) => {
        if (saving) return
        if (e.key === 'Escape') {
          e.preventDefault()
          onDone()
        } else if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
          e.preventDefault()
          e.currentTarget.requestSubmit()
        }
      }}
      aria-labelledby={headingId}
      data-testid="cron-form"
    >
      {/* which job this is: the form opens above the table, away from the row whose Edit opened it */}
      <h2 className="section-title" id={headingId} data-testid="cron-form-title">
        {job ? (
          <>
            Edit job {job.name} <span className="muted mono">{job.id}</span>
          </>
        ) : (
          'New job'
        )}
      </h2>
      <label className="field">
        Schedule
        <input
          ref={first}
          className="mono"
          value={schedule}
          onChange={(e) => setSchedule(e.target.value)}
          placeholder="30m · every 2h · 0 9 * * * · 2026-02-03T14:00"
          data-testid="cron-schedule"
        />
      </label>
      {gone && (
        <div className="error-text" role="alert" data-testid="cron-form-gone">
          This job is no longer in jobs.json: another program removed it. Your edits are still here — save to create it
          as a new job, or cancel to drop them.
        </div>
      )}
      {job && !gone && !job.enabled && job.state !== 'paused' && (
        <div className="muted" data-testid="cron-form-finished">
          This job is {job.state}: saving a new schedule does not start it again. Resume it from the list to run it.
        </div>
      )}
      {preview &&
        (preview.ok ? (
          <div className="muted" data-testid="cron-preview">
            Next runs: {preview.runs.map((r) => whenOnClock(r, clock)).join(' · ')}
          </div>
        ) : (
          <div className="error-text" data-testid="cron-preview-error" style={{ whiteSpace: 'pre-wrap' }}>
            {preview.error}
          </div>
        ))}
      <label className="field">
        Prompt
        <textarea
          rows={3}
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          aria-describedby={promptOptional ? `${headingId}-prompt` : undefined}
          data-testid="cron-prompt"
        />
        {promptOptional && (
          <span id={`${headingId}-prompt`} className="muted small">
            {job?.noAgent
              ? 'Optional: this job runs its script with no agent.'
              : 'Optional: the job runs its skills with this as their instruction.'}
          </span>
        )}
      </label>
      <label className="field">
        Name (optional)
        <input value={name} onChange={(e) => setName(e.target.value)} data-testid="cron-name" />
      </label>
      {/* the spend guard refuses a job that follows the profile's model once that model changed: pinning one here is
          how it runs again, without the CLI its refusal names */}
      <label className="field">
        Model (optional)
        <input
          className="mono"
          value={model}
          onChange={(e) => setModel(e.target.value)}
          placeholder="the profile's model"
          aria-describedby={`${headingId}-model`}
          data-testid="cron-model"
        />
        <span id={`${headingId}-model`} className="muted small">
          Empty: the job follows the profile&apos;s model settings; a job that follows them is not run after they change
          until it is given a model here.
        </span>
      </label>
      {error && (
        <div className="error-text" role="alert" data-testid="cron-form-error" style={{ whiteSpace: 'pre-wrap' }}>
          {error}
        </div>
      )}
      <div className="toolbar-inline">
        <button
          className="primary"
          type="submit"
          disabled={
            saving ||
            !schedule.trim() ||
            (!prompt.trim() && !promptOptional) ||
            (scheduleEdited && preview?.ok === false)
          }
          data-testid="cron-save"
        >
          {saving ? 'Saving…' : job && !gone ? 'Save' : 'Create job'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  )
}
