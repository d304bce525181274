/**
 * The Gateway page's channels (desk chat, the API server, the cron scheduler): a query polled while the page is
 * mounted, since no event says a cron job came due or the API server served a request. A host that stopped answering
 * fails every poll: the panel keeps what it last showed and says the refresh failed, and one toast says so for the
 * whole run of failures (not one per poll); the next success ends the run. While the connection is down, polling
 * waits for the reconnect (which re-reads every query on screen).
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import type { ChannelsStatus } from '@shared/contract'
import { getApi } from '../api'
import { errorMessage } from '../lib/format'
import { useConnection } from './connection'
import { reportError } from './toasts'
import { queryClient, requestKey } from './server'

export const CHANNELS_POLL_MS = 5000

/** Is the current run of failed reads toasted already? */
let failing = false

const channelsQuery = () =>
  queryOptions({
    queryKey: requestKey('channels.status', {}),
    queryFn: async (): Promise<ChannelsStatus> => {
      try {
        const status = await getApi().call('channels.status', {})
        failing = false
        return status
      } catch (err) {
        if (!failing) reportError(err, 'Loading channels')
        failing = true
        throw err
      }
    },
    // toasted above, once per run of failures
    meta: { silent: true },
    refetchInterval: () => {
      const st = useConnection.getState().state
      return st === 'reconnecting' || st === 'closed' ? false : CHANNELS_POLL_MS
    }
  })

/** The channels as last read, and why the last refresh failed (null when it did not). */
export function useChannelsStatus(): { status: ChannelsStatus | null; error: string | null } {
  const q = useQuery(channelsQuery())
  return { status: q.data ?? null, error: q.error ? errorMessage(q.error) : null }
}

/** Start or stop the in-app API server; the panel shows the host's answer. */
export async function setApiServer(enabled: boolean, profile: string): Promise<void> {
  try {
    const status = await getApi().call('channels.apiServer', { enabled, profile })
    queryClient.setQueryData(channelsQuery().queryKey, status)
  } catch (err) {
    reportError(err, 'Switching the API server')
  }
}
