import { stopTurn, type LiveTurn } from '../../stores/turns'
import { sessionHref } from '../../app/routes'
import { Reasoning, ToolCallView } from './MessageItem'
import { TurnBadge } from './TurnBadge'
import { Markdown } from '../../components/markdown/Markdown'

/** What a running turn has streamed and not yet persisted. */
export function LiveTurnView({ t, showBadge = true }: { t: LiveTurn; showBadge?: boolean }) {
  // queued, or a queued message whose turn never started (it failed): its text stays on screen
  if (t.status === 'queued' || (t.status === 'error' && t.queuedText !== undefined && t.cache === null))
    return <QueuedTurn t={t} />
  const streaming = t.text || t.reasoning || t.tools.length || t.notices.length
  return (
    <div className="live-turn" data-testid="live-turn" data-turn-id={t.turnId}>
      {showBadge && <TurnBadge t={t} />}
      {t.rotatedTo && t.rotatedTo !== t.sessionId && (
        <div className="notice">
          Context was compressed; the conversation continues in{' '}
          <a href={sessionHref(t.profile, t.rotatedTo)}>{t.rotatedTo}</a>.
        </div>
      )}
      {t.notices.map((n, i) => (
        <div key={i} className="message notice" data-testid="turn-notice">
          <span className="notice-icon" aria-hidden>
            ◆
          </span>
          {n}
        </div>
      ))}
      {streaming ? (
        <div className="message role-assistant streaming" data-testid="live-message">
          {t.reasoning && <Reasoning text={t.reasoning} />}
          {t.text && (
            <div className="msg-body">
              <Markdown text={t.text} />
              {t.status === 'running' && (
                <span className="caret" aria-hidden>
                  ▍
                </span>
              )}
            </div>
          )}
          {t.tools.map((c) => (
            <ToolCallView key={c.id} id={c.id} name={c.name} args={c.args} live={c.result} />
          ))}
        </div>
      ) : t.status === 'running' ? (
        <div className="muted pad-s" data-testid="live-waiting">
          Waiting for the model…
        </div>
      ) : null}
    </div>
  )
}

/**
 * A message sent mid-turn in queue mode: it is stored and answered when its turn starts; until then it can be
 * cancelled. If its turn could not start, the text stays here with the reason, so nothing typed is lost.
 */
function QueuedTurn({ t }: { t: LiveTurn }) {
  const waiting = t.status === 'queued'
  return (
    <div className="live-turn" data-testid="queued-turn" data-turn-id={t.turnId} data-status={t.status}>
      <div className="message role-user queued">
        <div className="queued-head" role="status">
          <span className={`badge ${waiting ? '' : 'badge-warn'}`} data-testid="queued-badge">
            {waiting ? 'queued' : 'not sent'}
          </span>
          <span className="muted small">{waiting ? 'runs when the current turn ends' : t.error}</span>
          {waiting && (
            <button
              className="small"
              onClick={() => void stopTurn(t.turnId)}
              disabled={t.stopping}
              aria-label={`${t.stopping ? 'Cancelling…' : 'Cancel'} queued message: ${(t.queuedText ?? '').slice(0, 60)}`}
              data-testid="queued-cancel"
            >
              {t.stopping ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
        </div>
        <div className="msg-body">{t.queuedText}</div>
        {t.note && <div className="muted small">{t.note}</div>}
      </div>
    </div>
  )
}
