import { useState } from 'react'
import { useApp } from '../../stores/app'
import { actingProfile } from '../../app/routes'
import { setApiServer, useChannelsStatus } from '../../stores/channels'

const Delivery = ({ ok }: { ok: boolean }) => (
  <span
    className={`badge ${ok ? 'badge-ok' : 'badge-neutral'}`}
    title={
      ok
        ? 'Background results are delivered as a follow-up turn'
        : 'Stateless: background delegation runs inline; terminal notify is refused'
    }
  >
    {ok ? 'async delivery' : 'stateless'}
  </span>
)

/** Where turns come from: desk chat, the in-app API server (switchable), the cron scheduler. */
export function ChannelsPanel() {
  const { status, error } = useChannelsStatus()
  const [switching, setSwitching] = useState(false)
  const profile = useApp((s) => actingProfile(s.scope, s.profiles)) ?? 'default'

  const toggle = async () => {
    if (!status) return
    setSwitching(true)
    await setApiServer(!status.apiServer.running, profile)
    setSwitching(false)
  }

  if (!status) return null
  const { apiServer: api, cron } = status
  return (
    <div className="channels" data-testid="gateway-channels">
      <h2>Channels</h2>
      {error && (
        <p className="muted small" role="status" data-testid="channels-stale">
          Could not refresh: {error}. Showing the last state read.
        </p>
      )}
      <table className="table compact">
        <thead>
          <tr>
            <th>Channel</th>
            <th>State</th>
            <th>Delivery</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          <tr data-testid="channel-desk">
            <td>Desk chat</td>
            <td>this window</td>
            <td>
              <Delivery ok={status.deskChat.asyncDelivery} />
            </td>
            <td />
          </tr>
          <tr data-testid="channel-api">
            <td>API server (OpenAI-compatible)</td>
            <td>
              {api.running ? (
                <>
                  <span className="mono">{api.url}</span> · profile {api.profile} · key {api.keySet ? 'set' : 'not set'}{' '}
                  · {api.requests} requests served
                </>
              ) : (
                <span className="muted">off{api.error ? ` — ${api.error}` : ''}</span>
              )}
            </td>
            <td>
              <Delivery ok={api.asyncDelivery} />
            </td>
            <td>
              <button
                className="small"
                disabled={switching}
                onClick={() => void toggle()}
                data-testid="api-server-toggle"
              >
                {api.running ? 'Stop' : 'Start'}
              </button>
            </td>
          </tr>
          <tr data-testid="channel-cron">
            <td>Cron scheduler</td>
            <td>
              {cron.enabled ? 'running' : 'off'} · {cron.jobsDue} due of {cron.jobsTotal} jobs
              {cron.running ? ` · ${cron.running} running` : ''}
              {cron.standingDown.length > 0 && (
                <span
                  className="badge badge-warn"
                  title="An upstream Hermes gateway is heartbeating for these profiles and runs their jobs"
                >
                  paused: upstream gateway live for {cron.standingDown.join(', ')}
                </span>
              )}
            </td>
            <td>
              <Delivery ok={cron.asyncDelivery} />
            </td>
            <td />
          </tr>
        </tbody>
      </table>
    </div>
  )
}
