import { Badge } from '../../components/Badge'
import type { ToolFrame } from '@shared/contract/tool-frame'

/** Above a result: where untrusted content came from, and that Hermes kept only part of it. */
export function FrameTop({ frame }: { frame: ToolFrame }) {
  if (!frame.untrusted && !frame.cut) return null
  const cut = frame.cut
  return (
    <div className="tool-meta">
      {frame.untrusted && (
        <Badge tone="warn" testId="untrusted-badge" title={frame.notice ?? 'Content from an external source'}>
          untrusted · {frame.untrusted}
        </Badge>
      )}
      {cut && (
        <span className="muted small" data-testid="tool-preview-note">
          Preview only: the result was {cut.chars != null ? `${cut.chars.toLocaleString()} characters` : 'larger'}
          {cut.size ? ` (${cut.size})` : ''}
          {cut.path ? (
            <>
              ; the whole is saved in the agent's sandbox at <span className="mono">{cut.path}</span>
            </>
          ) : (
            '; Hermes could not save the whole'
          )}
        </span>
      )}
    </div>
  )
}

/**
 * Below a result: what Hermes's tool-loop guard told the model, context files Hermes appended for it, and a message
 * the user sent mid-turn.
 */
export function FrameNotes({ frame }: { frame: ToolFrame }) {
  return (
    <>
      {frame.guard && (
        <div className="small" role="note" data-testid="tool-loop-guard" title={frame.guard.code}>
          <span className="muted">{frame.guard.stop ? 'Tool loop hard stop' : 'Tool loop warning'} to the model: </span>
          {frame.guard.message}
        </div>
      )}
      {frame.context.map((c) => (
        <details key={c.path} className="small" data-testid="tool-context">
          <summary>Context from {c.path}</summary>
          <pre className="code text" tabIndex={0}>
            {c.text}
          </pre>
        </details>
      ))}
      {frame.steer && (
        <div className="small" role="note" data-testid="tool-steer">
          <span className="muted">Your message during the turn: </span>
          {frame.steer}
        </div>
      )}
    </>
  )
}
