import type { Message } from '@shared/contract'
import { NoticeRaw } from './NoticeRaw'
import { Highlighted } from '../../components/Snippet'
import { formatDateTime, messageTime } from '../../lib/format'
import type { ProcessNotice } from '@shared/contract/process-notice'

/**
 * A background process that finished (or whose output matched a watch pattern), as the event it is: how it ended,
 * the command and its output, with the notice's whole text — what the model was given — one click away.
 */
export function ProcessNoticeCard({
  m,
  notice,
  common,
  terms
}: {
  m: Message
  notice: ProcessNotice
  /** The transcript row's own attributes (test id, message id, role, focus). */
  common: React.HTMLAttributes<HTMLDivElement>
  terms?: string[]
}) {
  const watch = notice.kind === 'watch'
  const status = watch ? 'matched' : notice.failed ? 'failed' : 'completed'
  const tone = watch ? 'badge-neutral' : notice.failed ? 'badge-err' : 'badge-ok'
  return (
    <div
      className="message notice process-notice"
      {...common}
      data-kind={m.displayKind ?? (watch ? 'upstream_process_watch' : 'upstream_process')}
      data-process-id={notice.processId}
      data-status={status}
      role="group"
      aria-label={watch ? 'Background process output matched' : `Background process ${status}`}
    >
      <div className="notice-head">
        <span className="notice-icon" aria-hidden>
          ◆
        </span>
        <strong>{watch ? 'Background process output matched' : 'Background process finished'}</strong>
        <span className={`badge ${tone}`} data-testid="notice-status">
          {watch ? 'watch' : notice.how}
        </span>
        <span className="mono muted small notice-id">{notice.processId}</span>
        {notice.writer === 'upstream' && <span className="badge badge-neutral">upstream</span>}
        <time className="muted small notice-time" title={formatDateTime(m.timestamp)}>
          {messageTime(m.timestamp)}
        </time>
      </div>
      <div className="notice-tasks">
        <div className="mono small notice-command" data-testid="notice-command">
          <span className="muted">$ </span>
          {notice.command}
        </div>
        {watch && (
          <div className="muted small" data-testid="notice-pattern">
            Pattern “{notice.pattern}”{notice.suppressed ? ` · ${notice.suppressed} earlier matches held back` : ''}
          </div>
        )}
        {notice.exitCode !== null && !watch && <div className="muted small">exit code {notice.exitCode}</div>}
        {notice.output ? (
          <pre
            className={`notice-outcome notice-output${notice.failed ? ' error-text' : ''}`}
            data-testid="notice-output"
          >
            <Highlighted text={notice.output} terms={terms} />
          </pre>
        ) : (
          <div className="muted small" data-testid="notice-output-none">
            No output.
          </div>
        )}
      </div>
      <NoticeRaw content={m.content} terms={terms} />
    </div>
  )
}
