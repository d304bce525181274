import { useMemo } from 'react'
import type { Money } from '@shared/contract'
import { sumMoney } from '@shared/contract/money'
import { bucketFor } from '../lib/buckets'
import { sessionHref } from '../app/routes'
import { MoneyText } from '../components/MoneyText'
import { formatCount, moneyStatusLabel } from '../lib/format'
import { useApp } from '../stores/app'
import {
  DAY_CHOICES,
  periodInput,
  periodLabel,
  periodSlug,
  setCostAll,
  setCostDay,
  setCostDays,
  useCostSummary
} from '../stores/costs'
import { PeriodRange } from './costs/PeriodRange'
import { CostChart } from './costs/CostChart'
import { shortDay } from './costs/chart-style'
import { TokensByDay } from './costs/TokensByDay'
import { useCostsUrlState } from './costs/cost-url'
import { costsCsv, costsJson } from './costs/cost-export'
import { ExportReportButton } from './costs/ExportReport'
import { SessionLabel } from '../components/SessionName'
import { ProfileUnreadable, scopeUnreadable, UnreadableProfiles } from '../components/UnreadableProfiles'
import { download } from '../lib/download'

export function CostsPage() {
  const scope = useApp((s) => s.scope)
  const { summary, loading, error, ...view } = useCostSummary()
  const { days, day } = view
  const preset = !view.all && !view.from && !view.to
  // over a long period a bar is a week or a month: a year of daily bars is too thin to read or click
  const bucket = useMemo(
    () =>
      summary
        ? bucketFor([...summary.byDay.map((d) => d.day), ...(summary.tokensByDay ?? []).map((d) => d.day)])
        : 'day',
    [summary]
  )
  useCostsUrlState()
  const own = summary ? sumMoney(summary.profiles.map((p) => p.own)) : null
  const children = summary ? sumMoney(summary.profiles.map((p) => p.children)) : null
  // profiles the host could not read are not in any figure: the totals are incomplete, whatever their prices
  const unreadable = summary?.unavailable ?? []
  const whollyUnreadable = summary ? scopeUnreadable(scope, unreadable) : null
  const notRead = `incomplete · ${unreadable.length === 1 ? '1 profile' : `${unreadable.length} profiles`} not read`
  const statusOf = (m: Money) => (unreadable.length ? notRead : moneyStatusLabel(m))
  const totalLabel = summary ? statusOf(summary.total) : ''
  const totalWarn = summary ? !summary.total.complete || unreadable.length > 0 : false

  return (
    <div className="costs-page" aria-busy={loading}>
      <h1 className="sr-only">Costs</h1>
      <div className="toolbar">
        <div className="seg" role="group" aria-label="Period">
          {DAY_CHOICES.map((d) => (
            <button
              key={d}
              className={preset && d === days ? 'active' : ''}
              aria-pressed={preset && d === days}
              onClick={() => void setCostDays(d)}
              data-testid={`costs-days-${d}`}
            >
              {d}d
            </button>
          ))}
          <button
            className={view.all ? 'active' : ''}
            aria-pressed={view.all}
            onClick={() => void setCostAll()}
            data-testid="costs-days-all"
          >
            All
          </button>
        </div>
        <PeriodRange from={view.from} to={view.to} />
        {day && (
          <span className="chip" data-testid="costs-day-filter">
            Day: {shortDay(day)} ({day})
            <button
              className="chip-clear"
              aria-label={`Clear the day filter (${day})`}
              data-testid="costs-day-clear"
              onClick={() => void setCostDay(null)}
            >
              ×
            </button>
          </span>
        )}
        {loading && <span className="muted">Loading…</span>}
        {/* the exports wrap together, kept at the right; the note on unpriced usage has a line of its own */}
        {summary && !whollyUnreadable && (
          <div className="toolbar-actions" role="group" aria-label="Export">
            <button
              className="small"
              data-testid="costs-export-csv"
              onClick={() =>
                download(`caduceus-costs-${scope}-${day ?? periodSlug(view)}.csv`, 'text/csv', costsCsv(summary))
              }
            >
              Export CSV
            </button>
            <ExportReportButton scope={scope} view={view} />
            <button
              className="small"
              data-testid="costs-export-json"
              onClick={() =>
                download(
                  `caduceus-costs-${scope}-${day ?? periodSlug(view)}.json`,
                  'application/json',
                  costsJson(summary, { scope, ...periodInput(view), ...(day ? { day } : {}) })
                )
              }
            >
              Export JSON
            </button>
          </div>
        )}
        {summary && !summary.total.complete && (
          <span className="muted small toolbar-note" data-testid="costs-partial-note">
            Amounts marked <span className="badge badge-warn money-q">partial</span> leave out usage with no known
            price.
          </span>
        )}
      </div>
      {!summary && loading && <div className="muted pad">Loading costs…</div>}
      {error && !summary && (
        <div className="empty" role="alert">
          Could not load costs: {error}
        </div>
      )}
      {whollyUnreadable && <ProfileUnreadable problem={whollyUnreadable} what="costs" />}
      {summary && !whollyUnreadable && (
        <>
          <UnreadableProfiles problems={unreadable} what="These totals leave out" />
          <div className="cards">
            <div className="card">
              <div className="card-label">Total (inclusive)</div>
              <div className="card-value" data-testid="costs-inclusive-total">
                <MoneyText money={summary.total} bare />
              </div>
              <div
                className={`card-sub${totalWarn ? ' warn-text' : ''}`}
                data-testid="costs-status"
                data-complete={!totalWarn}
                title={
                  unreadable.length
                    ? `Leaves out ${unreadable.map((p) => p.profile).join(', ')}: could not be read`
                    : summary.total.complete
                      ? undefined
                      : 'Some usage has no known price and is not in this total'
                }
              >
                {totalLabel}
              </div>
            </div>
            <div className="card">
              <div className="card-label">Own</div>
              <div className="card-value" data-testid="costs-own-total">
                <MoneyText money={own} bare />
              </div>
              <div className={`card-sub${own && (!own.complete || unreadable.length) ? ' warn-text' : ''}`}>
                {own ? statusOf(own) : ''}
              </div>
            </div>
            <div className="card">
              <div className="card-label">Children</div>
              <div className="card-value" data-testid="costs-children-total">
                <MoneyText money={children} bare />
              </div>
              <div className="card-sub">
                delegated subagents{children && children.status !== 'none' ? ` · ${statusOf(children)}` : ''}
              </div>
            </div>
            <div className="card">
              <div className="card-label">Sessions</div>
              <div className="card-value">{summary.profiles.reduce((n, p) => n + p.sessions, 0)}</div>
              <div className="card-sub" data-testid="costs-period">
                {day ? `on ${shortDay(day)}` : periodLabel(view)}
              </div>
            </div>
          </div>
          {summary.customPriced && (
            <p className="muted small pad-s" data-testid="costs-custom-priced">
              Includes <strong>${summary.customPriced.usd.toFixed(2)}</strong> at{' '}
              <span className="badge badge-accent">custom price</span> for {summary.customPriced.models.join(', ')} —
              your prices from Settings, not upstream’s.
            </p>
          )}
          <CostChart summary={summary} bucket={bucket} />
          <TokensByDay summary={summary} day={day} bucket={bucket} />
          <div className="grid-2">
            <section className="panel">
              <h2 className="section-title">By profile</h2>
              <table className="table compact" data-testid="costs-by-profile">
                <thead>
                  <tr>
                    <th>Profile</th>
                    <th className="num">Own</th>
                    <th className="num">Children</th>
                    <th className="num">Inclusive</th>
                    <th className="num">Sessions</th>
                  </tr>
                </thead>
                <tbody>
                  {!summary.profiles.length && (
                    <tr>
                      <td colSpan={5} className="muted">
                        No profiles in scope.
                      </td>
                    </tr>
                  )}
                  {summary.profiles.map((p) => (
                    <tr key={p.profile} data-testid="costs-profile-row" data-profile={p.profile}>
                      <td>{p.profile}</td>
                      <td className="num">
                        <MoneyText money={p.own} />
                      </td>
                      <td className="num">
                        <MoneyText money={p.children} />
                      </td>
                      <td className="num">
                        <MoneyText money={p.inclusive} />
                      </td>
                      <td className="num">{p.sessions}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <h2 className="section-title">By model</h2>
              <table className="table compact" data-testid="costs-by-model">
                <thead>
                  <tr>
                    <th>Model</th>
                    <th className="num">Tokens in / out</th>
                    <th className="num">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {!summary.byModel.length && (
                    <tr>
                      <td colSpan={3} className="muted">
                        No model usage in this period.
                      </td>
                    </tr>
                  )}
                  {summary.byModel.map((m) => (
                    <tr key={m.model}>
                      <td className="mono">{m.model}</td>
                      <td className="num">
                        {formatCount(m.tokens.input)} / {formatCount(m.tokens.output)}
                      </td>
                      <td className="num">
                        <MoneyText money={m.cost} custom={m.customPrice} />
                      </td>
                    </tr>
                  ))}
                </tbody>
                {summary.byModel.length > 0 && (
                  <tfoot>
                    <tr>
                      <th scope="row">Total</th>
                      <td className="num">
                        {formatCount(summary.byModel.reduce((n, m) => n + m.tokens.input, 0))} /{' '}
                        {formatCount(summary.byModel.reduce((n, m) => n + m.tokens.output, 0))}
                      </td>
                      <td className="num" data-testid="costs-by-model-total">
                        {/* the models' costs summed by the one money rule: equals the inclusive total */}
                        <MoneyText
                          money={{
                            ...summary.total,
                            usd:
                              summary.total.usd == null ? null : (sumMoney(summary.byModel.map((m) => m.cost)).usd ?? 0)
                          }}
                          bare
                        />
                      </td>
                    </tr>
                  </tfoot>
                )}
              </table>
            </section>
            <section className="panel">
              <h2 className="section-title">Top sessions</h2>
              <table className="table compact" data-testid="costs-top-sessions">
                <thead>
                  <tr>
                    <th>Session</th>
                    <th className="num">Own</th>
                    <th className="num">Inclusive</th>
                  </tr>
                </thead>
                <tbody>
                  {!summary.topSessions.length && (
                    <tr>
                      <td colSpan={3} className="muted">
                        No sessions in this period.
                      </td>
                    </tr>
                  )}
                  {summary.topSessions.map((s) => (
                    <tr
                      key={`${s.profile}/${s.sessionId}`}
                      data-testid="costs-top-session"
                      data-session-id={s.sessionId}
                    >
                      <td className="top-session">
                        <a
                          href={sessionHref(s.profile, s.sessionId)}
                          title={s.title ? `${s.title} · ${s.sessionId}` : s.sessionId}
                        >
                          <SessionLabel profile={s.profile} id={s.sessionId} title={s.title} />
                        </a>
                        {scope === 'all' && <span className="muted small"> · {s.profile}</span>}
                      </td>
                      <td className="num">
                        <MoneyText money={s.own} />
                      </td>
                      <td className="num">
                        <MoneyText money={s.inclusive} custom={s.customPrice} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </div>
        </>
      )}
    </div>
  )
}
