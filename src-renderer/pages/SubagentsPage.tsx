import { Fragment, useMemo, useState } from 'react'
import { SessionName } from '../components/SessionName'
import { MoneyText } from '../components/MoneyText'
import { ProfileUnreadable, scopeUnreadable, UnreadableProfiles } from '../components/UnreadableProfiles'
import { useNow } from '../components/RelTime'
import { countdown, relativeTime } from '../lib/format'
import { useApp } from '../stores/app'
import {
  countByState,
  setShowTombstoned,
  setSpawnPaused,
  setSubagentTab,
  useSubagentList,
  useSubagents,
  visibleSubagents,
  type SubagentTab
} from '../stores/subagents'
import { StateBadge } from './subagents/StateBadge'
import { actionReasons, SubagentActions, WhyUnavailable } from './subagents/SubagentActions'

/** Dispatched / finished / took, for the state cell's tooltip. */
function timings(s: { dispatchedAt: number | null; completedAt: number | null }, now: number): string | undefined {
  if (s.dispatchedAt === null) return undefined
  const parts = [`dispatched ${relativeTime(s.dispatchedAt, now)}`]
  if (s.completedAt !== null)
    parts.push(
      `finished ${relativeTime(s.completedAt, now)}`,
      `took ${Math.max(0, Math.round(s.completedAt - s.dispatchedAt))}s`
    )
  return parts.join(' · ')
}

const TABS: SubagentTab[] = ['all', 'running', 'retained', 'tombstoned', 'expired']

export function SubagentsPage() {
  const scope = useApp((s) => s.scope)
  const tab = useSubagents((s) => s.tab)
  const showTombstoned = useSubagents((s) => s.showTombstoned)
  const { list, loading, error } = useSubagentList()
  const maxRetained = list?.maxRetained ?? null
  const ttlHours = list?.ttlHours ?? null
  const spawnPaused = list?.spawnPaused ?? false
  const rows = useMemo(() => visibleSubagents(list?.items ?? [], { tab, showTombstoned }), [list, tab, showTombstoned])
  const counts = useMemo(() => countByState(list?.items ?? []), [list])
  const now = useNow(1000) // TTL countdowns
  const showProfile = scope === 'all'
  const unreadable = list?.unavailable
  const whollyUnreadable = scopeUnreadable(scope, unreadable)
  // rows whose "Why?" is open: the reasons get a row of their own, as wide as the table
  const [whyOpen, setWhyOpen] = useState<ReadonlySet<string>>(new Set())
  const toggleWhy = (key: string) =>
    setWhyOpen((cur) => {
      const next = new Set(cur)
      if (!next.delete(key)) next.add(key)
      return next
    })

  return (
    <div className="subagents-page">
      <h1 className="sr-only">Subagents</h1>
      <div className="toolbar">
        <div className="seg" role="tablist" aria-label="State">
          {TABS.map((t) => (
            <button
              key={t}
              role="tab"
              aria-selected={tab === t}
              className={tab === t ? 'active' : ''}
              onClick={() => void setSubagentTab(t)}
              data-testid={`subagents-tab-${t}`}
            >
              {t}
              {t !== 'all' && t !== 'tombstoned' && <span className="count">{counts[t]}</span>}
            </button>
          ))}
        </div>
        <label className="field-inline">
          <input
            type="checkbox"
            checked={showTombstoned}
            onChange={(e) => void setShowTombstoned(e.target.checked)}
            data-testid="show-tombstoned"
          />{' '}
          show tombstoned
        </label>
        <span className="spacer" />
        <button
          className={`small${spawnPaused ? ' primary' : ''}`}
          aria-pressed={spawnPaused}
          onClick={() => void setSpawnPaused(!spawnPaused)}
          aria-describedby="spawn-pause-note"
          data-testid="spawn-pause"
        >
          {spawnPaused ? 'Resume spawning' : 'Pause spawning'}
        </button>
        {/* what the switch does, in words everyone gets (a title tooltip shows only to a mouse) */}
        <span id="spawn-pause-note" className="muted small spawn-note" data-testid="spawn-pause-note">
          {spawnPaused
            ? 'Paused: agents this app runs cannot start new subagents; follow-ups to existing ones still run.'
            : 'Pausing stops agents this app runs from starting new subagents (upstream Hermes keeps its own switch).'}
        </span>
        {maxRetained != null && (
          <span className="muted">
            keeps up to {maxRetained} retained · TTL {ttlHours}h
          </span>
        )}
      </div>
      {!whollyUnreadable && <UnreadableProfiles problems={unreadable} what="This list leaves out" />}
      {whollyUnreadable ? (
        <ProfileUnreadable problem={whollyUnreadable} what="subagents" />
      ) : error && !rows.length ? (
        <div className="empty" role="alert">
          Could not load subagents: {error}
        </div>
      ) : !rows.length ? (
        <div className="empty" data-testid="subagents-empty">
          {loading ? 'Loading…' : `No ${tab === 'all' ? '' : `${tab} `}subagents.`}
        </div>
      ) : (
        <div className="table-wrap">
          {/* fixed columns: a live update changing one cell's width must not shift the whole table */}
          <table className="table subagents-table" data-testid="subagents-table">
            <colgroup>
              <col className="c-goal" />
              <col className="c-model" />
              <col className="c-state" />
              <col className="c-parent" />
              <col className="c-ret" />
              <col className="c-ttl" />
              <col className="c-cost" />
              <col className="c-act" />
            </colgroup>
            <thead>
              <tr>
                <th>Goal</th>
                <th>Model</th>
                <th>State</th>
                <th>Parent</th>
                <th>Retained</th>
                <th title="Retained children are tombstoned when their TTL runs out">Expires in</th>
                <th className="num">Cost</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => {
                const key = `${s.profile}/${s.childId}`
                const whyId = `why-${key}`
                const reasons = actionReasons(s)
                return (
                  <Fragment key={key}>
                    <tr
                      data-testid="subagent-row"
                      data-child-id={s.childId}
                      data-state={s.state}
                      data-profile={s.profile}
                    >
                      <td className="goal">
                        <div className="clamp-2" title={s.goal}>
                          {s.goal}
                        </div>
                        <div className="goal-sub">
                          {showProfile && <span className="badge badge-accent">{s.profile}</span>}
                          {s.foreign &&
                            (s.delegationId === '' ? (
                              <span
                                className="badge badge-neutral"
                                data-testid="subagent-session-only"
                                title="A synchronous delegate run (upstream's or this app's): no delegation row names it, so it is shown from its child session"
                              >
                                session
                              </span>
                            ) : (
                              <span
                                className="badge badge-neutral"
                                data-testid="subagent-foreign"
                                title="Dispatched by upstream Hermes in another process: shown from its delegation row"
                              >
                                upstream
                              </span>
                            ))}
                          <span className="mono muted small child-id" title={s.childId}>
                            {s.childId}
                          </span>
                        </div>
                        {(s.summary || s.error) && (
                          <div
                            className={`clamp-2 small ${s.error && !s.summary ? 'error-text' : 'muted'}`}
                            title={s.summary ?? s.error ?? undefined}
                            data-testid="subagent-outcome"
                          >
                            {s.summary ?? s.error}
                          </div>
                        )}
                      </td>
                      <td className="mono">{s.model ?? '—'}</td>
                      <td title={timings(s, now)}>
                        <StateBadge state={s.state} raw={s.rawState} />
                      </td>
                      <td>
                        {s.parentSessionId ? (
                          <SessionName profile={s.profile} id={s.parentSessionId} testId="subagent-parent" />
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>{s.retainedAt ? relativeTime(s.retainedAt, now) : '—'}</td>
                      <td data-testid="subagent-ttl">{s.state === 'retained' ? countdown(s.expiresAt, now) : '—'}</td>
                      <td className="num">
                        <MoneyText money={s.cost} custom={s.customPrice} />
                      </td>
                      <td>
                        <SubagentActions
                          s={s}
                          why={{ id: whyId, open: whyOpen.has(key), toggle: () => toggleWhy(key) }}
                        />
                      </td>
                    </tr>
                    {(reasons.open || reasons.followUp || reasons.tombstone) && (
                      // kept in the DOM while closed: the disabled buttons' descriptions point into it
                      <tr className="why-row" hidden={!whyOpen.has(key)} data-testid="subagent-why-row">
                        <td colSpan={8}>
                          <WhyUnavailable id={whyId} reasons={reasons} hidden={false} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
