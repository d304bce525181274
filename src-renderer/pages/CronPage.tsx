import { useCallback, useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { cronRepeatText, type CronJob } from '@shared/contract'
import { sessionHref } from '../app/routes'
import { RefreshIcon } from '../components/icons'
import { useApp } from '../stores/app'
import { removeCronJob, runCronNow, setCronProfile, setJobPaused, useCron, useCronJobs } from '../stores/cron'
import { CronJobForm } from './cron/CronJobForm'
import { RemoveJobDialog } from './cron/RemoveJobDialog'
import { clockLabel, whenOnClock } from './cron/cron-time'

/**
 * A scheduled job whose next run time has passed without a run (the host was off, another scheduler owns the home,
 * or this one runs a few at a time): said, rather than a past date left to read as the future.
 */
const overdue = (j: CronJob) =>
  j.enabled && j.state === 'scheduled' && j.nextRunAt != null && Date.parse(j.nextRunAt) < Date.now() - 60_000

function StateBadge({ job }: { job: CronJob }) {
  const cls = job.state === 'scheduled' ? 'badge-ok' : job.state === 'paused' ? 'badge-warn' : 'badge-neutral'
  return (
    <span className={`badge ${cls}`} data-testid="cron-state">
      {job.state}
    </span>
  )
}

/** Cron jobs of one profile (its cron/jobs.json): next/last run, create/edit with preview, pause, run now. */
export function CronPage() {
  const scope = useApp((s) => s.scope)
  const profiles = useApp((s) => s.profiles)
  const { profile, busy, lastRun } = useCron(
    useShallow((s) => ({ profile: s.profile, busy: s.busy, lastRun: s.lastRun }))
  )
  const { jobs, clock, loading, refresh } = useCronJobs()
  const when = (iso: string | null) => whenOnClock(iso, clock)
  const [editing, setEditing] = useState<CronJob | 'new' | null>(null)
  const [removing, setRemoving] = useState<CronJob | null>(null)

  // A job gone from the list (removed by upstream) takes its remove question with it, and its edit form unless edits
  // were typed there (the form keeps them and offers to create the job anew: saving must not write to a job that no
  // longer exists). Removed here, the remove closes the form itself; another profile picked closes it too.
  const listed = (job: CronJob | null) => !job || loading || jobs.some((j) => j.id === job.id)
  const editGone = editing !== null && editing !== 'new' && !listed(editing)
  const removeGone = !listed(removing)
  useEffect(() => {
    if (removeGone) setRemoving(null)
  }, [removeGone])
  useEffect(() => setEditing(null), [profile])
  const closeForm = useCallback(() => setEditing(null), [])

  // A scope of one profile picks it; under All the picker keeps its choice.
  useEffect(() => {
    if (scope !== 'all') setCronProfile(scope)
  }, [scope])

  return (
    <div className="cron-page">
      <div className="toolbar">
        <h1 className="page-title">Cron</h1>
        <select
          value={profile}
          onChange={(e) => setCronProfile(e.target.value)}
          aria-label="Profile"
          data-testid="cron-profile"
        >
          {(profiles.length ? profiles.map((p) => p.name) : ['default']).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <span className="muted">
          {jobs.length} job{jobs.length === 1 ? '' : 's'} · runs are stateless (no background delivery)
        </span>
        {clock && (
          <span
            className="muted"
            data-testid="cron-clock"
            title="The zone this home's cron schedules run in; times on this page are shown in it"
          >
            · times in {clockLabel(clock)}
          </span>
        )}
        <span className="spacer" />
        <button className="primary" onClick={() => setEditing('new')} data-testid="cron-new">
          New job
        </button>
        <button className="icon-btn" onClick={() => void refresh()} title="Refresh" aria-label="Refresh">
          <RefreshIcon />
        </button>
      </div>
      {editing && (
        <CronJobForm
          key={editing === 'new' ? 'new' : editing.id}
          job={editing === 'new' ? null : editing}
          clock={clock}
          gone={editGone}
          onDone={closeForm}
        />
      )}
      {!jobs.length ? (
        <div className="empty" data-testid="cron-empty">
          {loading ? 'Loading…' : 'No cron jobs for this profile.'}
        </div>
      ) : (
        <div className="table-wrap">
          <table className="table cron-table" data-testid="cron-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Schedule</th>
                <th>State</th>
                <th>Next run</th>
                <th>Last run</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr key={j.id} data-testid="cron-job" data-id={j.id}>
                  <td className="cron-name" title={j.prompt}>
                    {j.name}
                    <div className="muted mono">{j.id}</div>
                    <CronRuns job={j} />
                  </td>
                  <td className="mono">
                    {j.scheduleDisplay}
                    {cronRepeatText(j) && (
                      <div
                        className="muted"
                        data-testid="cron-repeat"
                        title="Runs so far of its limit: the job is removed after the last one"
                      >
                        repeat {cronRepeatText(j)}
                      </div>
                    )}
                    {j.deliver !== 'local' && (
                      <div className="muted cron-deliver" data-testid="cron-deliver">
                        delivers to {j.deliver}
                      </div>
                    )}
                  </td>
                  <td>
                    <StateBadge job={j} />
                  </td>
                  <td data-testid="cron-next-run">
                    {when(j.nextRunAt)}
                    {!j.enabled && j.state !== 'paused' && j.nextRunAt && (
                      <div className="muted" data-testid="cron-not-scheduled">
                        not run until resumed
                      </div>
                    )}
                    {overdue(j) && (
                      <div
                        className="warn-text"
                        data-testid="cron-overdue"
                        title="Its time has passed and it has not run yet: a scheduler runs it at its next check (a few at a time), or use Run now"
                      >
                        overdue
                      </div>
                    )}
                  </td>
                  <td className="cron-last">
                    {when(j.lastRunAt)}
                    {j.lastStatus && (
                      <>
                        {' '}
                        <span
                          className={`badge ${j.lastStatus === 'ok' ? 'badge-ok' : 'badge-err'}`}
                          data-testid="cron-last-status"
                        >
                          {j.lastStatus}
                        </span>
                      </>
                    )}
                    {j.lastError && <div className="error-text">{j.lastError}</div>}
                    {j.lastDeliveryError && (
                      <div className="warn-text" role="status" data-testid="cron-delivery-error">
                        Not delivered: {j.lastDeliveryError}
                      </div>
                    )}
                    {j.lastWarnings.map((w, i) => (
                      <div key={i} className="warn-text" role="status" data-testid="cron-last-warning">
                        {w}
                      </div>
                    ))}
                    {j.lastSessionId && (
                      <div>
                        <a href={sessionHref(profile, j.lastSessionId)} data-testid="cron-open-session">
                          Open session
                        </a>
                      </div>
                    )}
                  </td>
                  <td>
                    <div className="actions">
                      <button
                        className="small"
                        // A paused or finished job is not run by hand (upstream's `hermes cron run` refuses it too).
                        disabled={!!busy[j.id] || !j.enabled || j.state === 'paused'}
                        title={!j.enabled || j.state === 'paused' ? 'Resume the job to run it' : undefined}
                        onClick={() => void runCronNow(j.id)}
                        data-testid="cron-run-now"
                      >
                        {busy[j.id] ? 'Working…' : 'Run now'}
                      </button>
                      {/* A finished (disabled) job comes back by resuming it: a new schedule alone leaves it finished, as
                          upstream's dashboard edit does. */}
                      {j.state === 'paused' || !j.enabled ? (
                        <button
                          className="small"
                          disabled={!!busy[j.id]}
                          onClick={() => void setJobPaused(j.id, false)}
                          data-testid="cron-resume"
                        >
                          Resume
                        </button>
                      ) : (
                        <button
                          className="small"
                          disabled={!!busy[j.id] || j.state !== 'scheduled'}
                          onClick={() => void setJobPaused(j.id, true)}
                          data-testid="cron-pause"
                        >
                          Pause
                        </button>
                      )}
                      <button className="small" onClick={() => setEditing(j)} data-testid="cron-edit">
                        Edit
                      </button>
                      <button
                        className="small danger"
                        disabled={!!busy[j.id]}
                        onClick={() => setRemoving(j)}
                        data-testid="cron-remove"
                      >
                        Remove
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {removing && (
        <RemoveJobDialog
          job={removing}
          profile={profile}
          onClose={() => setRemoving(null)}
          onConfirm={() => {
            if (editing !== 'new' && editing?.id === removing.id) setEditing(null)
            void removeCronJob(removing.id)
          }}
        />
      )}
      {lastRun && (
        <div className="pad" data-testid="cron-last-run">
          <h2 className="section-title">
            Last run{' '}
            <span className={`badge ${lastRun.status === 'ok' ? 'badge-ok' : 'badge-err'}`}>{lastRun.status}</span>{' '}
            <a href={sessionHref(profile, lastRun.sessionId)} data-testid="cron-last-run-session">
              Open session
            </a>
          </h2>
          <pre className="mono" style={{ whiteSpace: 'pre-wrap' }} data-testid="cron-output">
            {lastRun.output}
          </pre>
        </div>
      )}
    </div>
  )
}

/**
 * What a job runs beside its prompt, as upstream's `hermes cron list` shows it: the skills it loads, its script (with
 * no agent, the script is the whole job) and the folder it runs in. A skill-only job and a watchdog have no prompt.
 */
function CronRuns({ job }: { job: CronJob }) {
  return (
    <>
      {job.skills.length > 0 && (
        <div className="muted" data-testid="cron-skills">
          skills: {job.skills.join(', ')}
        </div>
      )}
      {job.script && (
        <div className="muted" data-testid="cron-script">
          script: <span className="mono">{job.script}</span>
          {job.noAgent && ' · no agent (its output is delivered as is)'}
        </div>
      )}
      {job.workdir && (
        <div className="muted" data-testid="cron-workdir">
          runs in <span className="mono">{job.workdir}</span>
        </div>
      )}
    </>
  )
}
