import type { CronJob } from '@shared/contract'
import { ConfirmDelete } from '../../components/ConfirmDelete'

/**
 * Remove asks first, naming the job. A confirmation rather than an undo window: jobs.json is upstream's file too, and
 * its scheduler (or ours) may run, claim or rewrite the job while an undo waited, so putting the old object back
 * later could resurrect a one-shot that already ran or undo upstream's own change. Starts on Cancel.
 */
export function RemoveJobDialog({
  job,
  profile,
  onConfirm,
  onClose
}: {
  job: CronJob
  profile: string
  onConfirm: () => void
  onClose: () => void
}) {
  return (
    <ConfirmDelete
      title="Remove this cron job?"
      confirmLabel="Remove job"
      onConfirm={onConfirm}
      onClose={onClose}
      testId="cron-remove-dialog"
      confirmTestId="cron-remove-confirm"
      undoable={false}
    >
      <p>
        “{job.name}” (<code>{job.id}</code>, {job.scheduleDisplay}) will be deleted from <strong>{profile}</strong>’s
        cron/jobs.json, and neither Caduceus nor upstream Hermes will run it again.
      </p>
    </ConfirmDelete>
  )
}
