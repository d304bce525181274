import { memo } from 'react'
import type { SessionSort, SessionSummary } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { Badge } from '../../components/Badge'
import { MoneyText } from '../../components/MoneyText'
import { RelTime } from '../../components/RelTime'
import { countOf, formatCount, shortId } from '../../lib/format'
import { sessionLabel } from '../../lib/session-label'
import { sessionKey } from '../../stores/sessions'

interface Props {
  s: SessionSummary
  /** The keyboard cursor is on this row. */
  selected: boolean
  /** The row's checkbox (bulk selection). */
  checked: boolean
  onCheck: (key: string, shift: boolean) => void
  showProfile: boolean
  /** The list's order: sorted by tokens or start, the Msgs and Active columns show those. */
  sort?: SessionSort
}

/** One dense row: title/preview, source, model, counts, last activity, cost and lineage markers. */
export const SessionRow = memo(function SessionRow({ s, selected, checked, onCheck, showProfile, sort }: Props) {
  const tokens = s.tokens.input + s.tokens.output + s.tokens.cacheRead + s.tokens.cacheWrite + s.tokens.reasoning
  const title = sessionLabel({ title: s.title, preview: s.preview, at: s.lastActiveAt })
  const key = sessionKey(s.profile, s.id)
  return (
    // the checkbox sits beside the link, not inside it: an interactive control nested in a link is unreachable
    <div className={`row-shell${checked ? ' checked' : ''}`} data-row-key={key}>
      <label className="row-check">
        <input
          type="checkbox"
          aria-label={title}
          data-testid="row-select"
          checked={checked}
          // click (not change) carries shiftKey; Space on the focused box clicks it too
          onClick={(e) => onCheck(key, e.shiftKey)}
          onChange={() => {}}
        />
      </label>
      <a
        href={sessionHref(s.profile, s.id)}
        className={`session-row${selected ? ' selected' : ''}${s.archived ? ' archived' : ''}`}
        data-testid="session-row"
        data-session-id={s.id}
        data-profile={s.profile}
        aria-current={selected ? 'true' : undefined}
        data-selected={selected || undefined}
      >
        <div className="row-main">
          <span className={`row-title${s.title ? '' : ' untitled'}`} title={title}>
            {s.pinned && <span aria-label="pinned">★ </span>}
            {title}
          </span>
          <span className="row-sub">
            {showProfile && <Badge tone="accent">{s.profile}</Badge>}
            <Badge testId="session-source">{s.source}</Badge>
            {s.kind !== 'root' && (
              <Badge tone="neutral" title="How this session relates to its parent">
                {s.kind}
              </Badge>
            )}
            {s.chainLength > 1 && (
              <Badge tone="neutral" title={`Compression chain of ${s.chainLength} sessions`} testId="chain-marker">
                chain {s.chainLength}
              </Badge>
            )}
            {s.childCount > 0 && (
              <Badge tone="neutral" title={`${s.childCount} delegated children`} testId="children-marker">
                ↳ {s.childCount}
              </Badge>
            )}
            {s.archived && <Badge tone="warn">archived</Badge>}
            <span className="mono muted">{shortId(s.id, 14)}</span>
          </span>
        </div>
        <span className="row-model mono" title={s.model ?? ''}>
          {s.model ?? '—'}
        </span>
        {sort === 'tokens' ? (
          <span className="row-num" data-testid="session-tokens" title={`${tokens.toLocaleString()} tokens`}>
            {formatCount(tokens)}
          </span>
        ) : (
          <span
            className="row-num"
            data-testid="session-msgs"
            title={`${countOf(s.messageCount, 'message')}, ${countOf(s.toolCallCount, 'tool call')}`}
          >
            {formatCount(s.messageCount)}
          </span>
        )}
        <span className="row-time" data-testid={sort === 'started' ? 'session-started' : undefined}>
          <RelTime at={sort === 'started' ? s.startedAt : s.lastActiveAt} />
        </span>
        <span className="row-cost">
          <MoneyText money={s.cost} testId="session-cost" custom={s.customPrice} />
        </span>
      </a>
    </div>
  )
})
