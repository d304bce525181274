import type { Message } from '@shared/contract'
import { STOPPED_NOTICE, type StoppedTurn } from '@shared/contract/stopped-turn'
import { NoticeRaw } from './NoticeRaw'
import { formatDateTime, messageTime } from '../../lib/format'

/**
 * The row that closes a tool round the user stopped (Caduceus's or upstream's): an event, not the model's words. The
 * row's text — which the model is given with the rest of the conversation — is one click away.
 */
export function StoppedTurnCard({
  m,
  stop,
  common,
  terms
}: {
  m: Message
  stop: StoppedTurn
  /** The transcript row's own attributes (test id, message id, role, focus). */
  common: React.HTMLAttributes<HTMLDivElement>
  terms?: string[]
}) {
  return (
    <div
      className="message notice stopped-notice"
      {...common}
      data-kind="turn_stopped"
      data-writer={stop.writer}
      role="group"
      aria-label={STOPPED_NOTICE.title}
    >
      <div className="notice-head">
        <span className="notice-icon" aria-hidden>
          ■
        </span>
        <strong>{STOPPED_NOTICE.title}</strong>
        <span className="muted small">{STOPPED_NOTICE.when}</span>
        {stop.writer === 'upstream' && <span className="badge badge-neutral">upstream</span>}
        <time className="muted small notice-time" title={formatDateTime(m.timestamp)}>
          {messageTime(m.timestamp)}
        </time>
      </div>
      {stop.detail && (
        <div className="muted small notice-outcome" data-testid="notice-stop-detail">
          Upstream’s note: {stop.detail}
        </div>
      )}
      <NoticeRaw content={m.content} terms={terms} />
    </div>
  )
}
