import { create } from 'zustand'
import type { GatewayState } from '@shared/contract'
import { getApi } from '../api'
import { reportError } from './toasts'
import { coalescedLoader } from '../lib/coalesce'

interface GatewayStore {
  state: GatewayState | null
  /** When `state` was read (ms): idle times keep counting from there between reads. */
  fetchedAt: number
  loading: boolean
  evicting: Record<string, boolean>
}

export const useGateway = create<GatewayStore>()(() => ({ state: null, fetchedAt: 0, loading: false, evicting: {} }))
let watchers = 0

/** The gateway page watches while mounted; events cost nothing when nobody looks. */
export function watchGateway(): () => void {
  watchers++
  void loadGateway()
  return () => {
    watchers--
  }
}

export function applyGatewayChanged(): Promise<void> {
  return watchers > 0 ? loadGateway() : Promise.resolve()
}

/** Overlapping calls share the running load plus one trailing pass. */
export const loadGateway = coalescedLoader(async () => {
  useGateway.setState({ loading: true })
  try {
    const state = await getApi().call('gateway.state')
    useGateway.setState({ state, fetchedAt: Date.now(), loading: false })
  } catch (err) {
    useGateway.setState({ loading: false })
    reportError(err, 'Loading gateway state')
  }
})

export async function evictAgent(key: string): Promise<boolean> {
  useGateway.setState((s) => ({ evicting: { ...s.evicting, [key]: true } }))
  try {
    const res = await getApi().call('gateway.evict', { key })
    if (!res.evicted) reportError(new Error('the agent is running; it was not evicted'), 'Evict')
    await loadGateway()
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
