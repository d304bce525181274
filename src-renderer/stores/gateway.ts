import { create } from 'zustand'
import { useQuery } from '@tanstack/react-query'
import { getApi } from '../api'
import { reportError } from './toasts'
import { invalidateSoon, requestPrefix, requestQuery } from './server'

interface GatewayStore {
  /** Agent keys with an eviction in flight. */
  evicting: Record<string, boolean>
}

export const useGateway = create<GatewayStore>()(() => ({ evicting: {} }))

const gatewayQuery = () => requestQuery('gateway.state', {}, 'Loading gateway state')

/**
 * The gateway page's read; `gateway.changed` refetches it only while the page is mounted (the bridge
 * invalidates, inactive queries just go stale). `fetchedAt` is when the state was read: idle times keep
 * counting from there between reads.
 */
export function useGatewayState() {
  const q = useQuery(gatewayQuery())
  return { state: q.data ?? null, fetchedAt: q.dataUpdatedAt, loading: q.isFetching, refresh: q.refetch }
}

export function applyGatewayChanged(): Promise<void> {
  return invalidateSoon({ queryKey: requestPrefix('gateway.state') })
}

export async function evictAgent(key: string): Promise<boolean> {
  useGateway.setState((s) => ({ evicting: { ...s.evicting, [key]: true } }))
  try {
    const res = await getApi().call('gateway.evict', { key })
    if (!res.evicted) reportError(new Error('the agent is running; it was not evicted'), 'Evict')
    await applyGatewayChanged()
    return res.evicted
  } catch (err) {
    reportError(err, 'Evict')
    return false
  } finally {
    useGateway.setState((s) => {
      const { [key]: _drop, ...rest } = s.evicting
      return { evicting: rest }
    })
  }
}
