import { MoneyText } from '../../components/MoneyText'
import { durationLabel, formatDateTime } from '../../lib/format'
import type { TurnSummary } from './turn-usage'

const n = (v: number) => v.toLocaleString()

/**
 * Under a turn's last reply: its tokens (input, cached, output, reasoning) and cost summed over its model calls,
 * and its tool calls on a timeline (start from the turn's first call, duration as a bar, result size).
 */
export function TurnUsage({ t }: { t: TurnSummary }) {
  if (!t.tokens && t.tokenCount == null && !t.tools.length) return null
  const t0 = t.tools[0]?.start ?? 0
  const span = Math.max(1e-9, ...t.tools.map((s) => s.start - t0 + (s.duration ?? 0)))
  return (
    <div className="turn-usage" data-testid="turn-usage" data-last-message-id={t.lastId}>
      {t.tokens ? (
        <div className="turn-tokens" data-testid="turn-tokens">
          <span title="Input tokens (not read from the prompt cache)">
            in <b data-testid="turn-input">{n(t.tokens.input)}</b>
          </span>
          <span title="Input tokens read from the prompt cache">
            cached <b data-testid="turn-cached">{n(t.tokens.cacheRead)}</b>
          </span>
          <span title="Output tokens">
            out <b data-testid="turn-output">{n(t.tokens.output)}</b>
          </span>
          <span title="Reasoning tokens (part of the output)">
            reasoning <b data-testid="turn-reasoning">{n(t.tokens.reasoning)}</b>
          </span>
          {t.cost && <MoneyText money={t.cost} testId="turn-cost" />}
          <span className="muted">
            {t.calls} call{t.calls === 1 ? '' : 's'}
            {t.models.length ? ` · ${t.models.join(', ')}` : ''}
          </span>
        </div>
      ) : (
        t.tokenCount != null && (
          <div className="turn-tokens muted" data-testid="turn-tokens">
            {n(t.tokenCount)} tokens (as the home recorded them; no per-call usage saved)
          </div>
        )
      )}
      {t.tools.length > 0 && (
        <ol className="tool-timeline" aria-label="Tool calls in this turn" data-testid="tool-timeline">
          {t.tools.map((s, i) => {
            const at = s.start - t0
            // by place: a call id may repeat in a session (shared/contract/tool-pairing.ts)
            return (
              <li key={`${i}:${s.callId}`} data-testid="timeline-call" title={`started ${formatDateTime(s.start)}`}>
                <span className="mono tl-name">{s.name}</span>
                <span className="tl-track" aria-hidden>
                  <span
                    className="tl-bar"
                    style={{
                      // a call at the turn's very end still shows its 2 px mark inside the track
                      left: `min(${(at / span) * 100}%, 100% - 2px)`,
                      width: s.duration != null ? `max(2px, ${(s.duration / span) * 100}%)` : '2px'
                    }}
                  />
                </span>
                <span className="muted small tl-facts">
                  <span data-testid="timeline-start">+{durationLabel(at)}</span>
                  {' · '}
                  <span data-testid="timeline-duration">
                    {s.duration != null ? durationLabel(s.duration) : 'no duration recorded'}
                  </span>
                  {' · '}
                  <span data-testid="timeline-size">
                    {s.resultSize != null ? `${n(s.resultSize)} chars` : 'no result'}
                  </span>
                </span>
              </li>
            )
          })}
        </ol>
      )}
    </div>
  )
}
