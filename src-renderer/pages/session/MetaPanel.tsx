import type { ModelUsage, SessionCost, SessionDetail } from '@shared/contract'
import { MoneyText } from '../../components/MoneyText'
import { countOf, formatCount, formatDateTime } from '../../lib/format'
import { SystemPromptFold } from './SystemPromptFold'
import { centsThatAddUp, routeNote } from './usage-rows'

function Row({ k, children, testId }: { k: string; children: React.ReactNode; testId?: string }) {
  return (
    <>
      <dt>{k}</dt>
      <dd data-testid={testId}>{children}</dd>
    </>
  )
}

/** Model, tokens (cache read/write, reasoning), own vs inclusive cost, api calls, cwd and branch. */
export function MetaPanel({ detail, cost }: { detail: SessionDetail; cost: SessionCost | null }) {
  const s = detail.summary
  const t = s.tokens
  // The row's model is the one the session started on; after a resume on another model the newest usage row
  // says what it runs on now. An end older than the last activity was undone by a resume.
  const current = detail.usage.at(-1)?.model ?? s.model
  // upstream's cost columns can hold more than its per-route rows (older rows): that rest is a row of its own
  const gap = cost?.perModel.find((m) => m.model === 'unattributed')
  const rows: ModelUsage[] = gap
    ? [
        ...detail.usage,
        { model: 'unattributed', provider: '', task: '', apiCalls: 0, tokens: gap.tokens, cost: gap.cost }
      ]
    : detail.usage
  const own = cost?.own ?? s.cost
  const shown =
    own.usd != null
      ? centsThatAddUp(
          own.usd,
          rows.map((u) => u.cost.usd)
        )
      : rows.map((u) => u.cost.usd)
  const ended = s.endedAt != null && (s.lastActiveAt == null || s.endedAt >= s.lastActiveAt - 1)
  return (
    <section className="panel" data-testid="session-meta">
      <h2 className="section-title">Session</h2>
      <dl className="kv">
        <Row k="Model" testId="meta-model">
          <span className="mono">{current ?? '—'}</span>
          {s.model && current !== s.model && <span className="muted small"> (started on {s.model})</span>}
        </Row>
        <Row k="Source">{s.source}</Row>
        <Row k="Started">{formatDateTime(s.startedAt)}</Row>
        {ended && s.endedAt != null && (
          <Row k="Ended" testId="meta-ended">
            {formatDateTime(s.endedAt)}
            {s.endReason ? ` (${s.endReason.replace(/_/g, ' ')})` : ''}
          </Row>
        )}
        <Row k="Messages" testId="meta-messages">
          {s.messageCount} · {countOf(s.toolCallCount, 'tool call')}
        </Row>
        <Row k="API calls" testId="meta-api-calls">
          {detail.apiCallCount}
        </Row>
        {detail.cwd && (
          <Row k="cwd">
            <span className="mono wrap">{detail.cwd}</span>
          </Row>
        )}
        {detail.gitBranch && (
          <Row k="Branch">
            <span className="mono">{detail.gitBranch}</span>
          </Row>
        )}
      </dl>
      <SystemPromptFold prompt={detail.systemPrompt} />
      <h2 className="section-title">Tokens</h2>
      <dl className="kv" data-testid="meta-tokens">
        <Row k="Input">{formatCount(t.input)}</Row>
        <Row k="Output">{formatCount(t.output)}</Row>
        <Row k="Cache read">{formatCount(t.cacheRead)}</Row>
        <Row k="Cache write">{formatCount(t.cacheWrite)}</Row>
        <Row k="Reasoning">{formatCount(t.reasoning)}</Row>
      </dl>
      <h2 className="section-title">Cost</h2>
      <dl className="kv">
        <Row k="Own" testId="session-cost-own">
          <MoneyText money={own} custom={cost ? cost.perModel.some((m) => m.customPrice) : s.customPrice} />
        </Row>
        {cost && (
          <Row k="Children" testId="session-cost-children">
            <MoneyText money={cost.childrenTotal} custom={cost.children.some((c) => c.customPrice)} />
          </Row>
        )}
        {cost && (
          <Row k="Inclusive" testId="session-cost-inclusive">
            <MoneyText money={cost.inclusive} custom={cost.customPrice} />
          </Row>
        )}
      </dl>
      {rows.length > 0 && (
        <table className="table compact" data-testid="usage-by-model">
          <thead>
            <tr>
              <th>Model</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((u, i) => {
              // the same model billed two ways gets two rows: each says what tells it apart (task, endpoint)
              const note = [u.task, routeNote(rows, u)].filter(Boolean).join(' · ')
              const hint = [
                u.model,
                u.provider,
                u.task,
                u.baseUrl,
                `${u.apiCalls} API call${u.apiCalls === 1 ? '' : 's'}`
              ]
                .filter(Boolean)
                .join(' · ')
              const usd = shown[i]
              return (
                <tr key={i} title={hint} data-testid="usage-row">
                  <td className="mono">
                    {u.model}
                    {note && (
                      <span className="muted small" data-testid="usage-route">
                        {' '}
                        · {note}
                      </span>
                    )}
                  </td>
                  <td className="num">{formatCount(u.tokens.input + u.tokens.output)}</td>
                  <td className="num">
                    <MoneyText
                      money={usd == null || u.cost.usd == null ? u.cost : { ...u.cost, usd }}
                      custom={u.customPrice}
                      testId="usage-cost"
                    />
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}
