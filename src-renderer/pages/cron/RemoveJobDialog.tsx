import type { CronJob } from '@shared/contract'
import { Dialog } from '../../components/Dialog'

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
    <Dialog
      title="Remove this cron job?"
      danger
      onClose={onClose}
      testId="cron-remove-dialog"
      footer={
        <>
          <button data-dialog-cancel onClick={onClose}>
            Cancel
          </button>
          <button
            className="primary danger"
            data-testid="cron-remove-confirm"
            onClick={() => {
              onClose()
              onConfirm()
            }}
          >
            Remove job
          </button>
        </>
      }
    >
      <p>
        “{job.name}” (<code>{job.id}</code>, {job.scheduleDisplay}) will be deleted from <strong>{profile}</strong>’s
        cron/jobs.json, and neither Caduceus nor upstream Hermes will run it again.
      </p>
      <p className="muted small">This cannot be undone.</p>
    </Dialog>
  )
}
