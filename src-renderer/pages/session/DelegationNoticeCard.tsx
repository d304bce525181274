import type { Message } from '@shared/contract'
import { NoticeRaw } from './NoticeRaw'
import { Highlighted } from '../../components/Snippet'
import { formatDateTime, messageTime } from '../../lib/format'
import { isOkStatus, type DelegationNotice } from '@shared/contract/delegation-notice'

const tone = (status: string | null) =>
  isOkStatus(status) ? 'badge-ok' : status === 'interrupted' ? 'badge-warn' : status ? 'badge-err' : 'badge-neutral'

/**
 * A finished background delegation, as the event it is: what came back for each task (goal, status, result), with the
 * notice's whole text — what the model was given — one click away. The delegation's children follow it (DelegationCards).
 */
export function DelegationNoticeCard({
  m,
  notice,
  common,
  terms
}: {
  m: Message
  notice: DelegationNotice
  /** The transcript row's own attributes (test id, message id, role, focus). */
  common: React.HTMLAttributes<HTMLDivElement>
  terms?: string[]
}) {
  const many = notice.tasks.length > 1
  return (
    <div
      className="message notice delegation-notice"
      {...common}
      data-kind={m.displayKind ?? 'upstream_delegation'}
      data-delegation-id={notice.delegationId}
      data-status={notice.status ?? undefined}
      role="group"
      aria-label={`Background delegation ${notice.status ?? 'finished'}`}
    >
      <div className="notice-head">
        <span className="notice-icon" aria-hidden>
          ◆
        </span>
        <strong>{many ? `Background delegation of ${notice.tasks.length} tasks` : 'Background delegation'}</strong>
        <span className={`badge ${tone(notice.status)}`} data-testid="notice-status">
          {notice.status ?? 'finished'}
        </span>
        <span className="mono muted small notice-id">{notice.delegationId}</span>
        {notice.writer === 'upstream' && <span className="badge badge-neutral">upstream</span>}
        <time className="muted small notice-time" title={formatDateTime(m.timestamp)}>
          {messageTime(m.timestamp)}
        </time>
      </div>
      {notice.tasks.length > 0 && (
        <ol className="notice-tasks">
          {notice.tasks.map((t, i) => (
            <li key={i} data-testid="notice-task" data-failed={t.failed || undefined}>
              <div className="notice-task-head">
                <span className="notice-goal">{t.goal || '(no goal given)'}</span>
                {many && t.status && <span className={`badge ${tone(t.status)}`}>{t.status}</span>}
              </div>
              {t.outcome && (
                <div className={`notice-outcome${t.failed ? ' error-text' : ''}`} data-testid="notice-outcome">
                  <Highlighted text={t.outcome} terms={terms} />
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
      {notice.error && (
        <div className="notice-outcome error-text" data-testid="notice-error">
          {notice.error}
        </div>
      )}
      {notice.facts.length > 0 && (
        <div className="muted small notice-facts">{notice.facts.map(([k, v]) => `${k}: ${v}`).join(' · ')}</div>
      )}
      <NoticeRaw content={m.content} terms={terms} />
    </div>
  )
}
