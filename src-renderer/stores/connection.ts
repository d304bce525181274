import { create } from 'zustand'
import type { ConnectionState, TransportKind } from '../api'

interface ConnectionStore {
  state: ConnectionState
  kind: TransportKind | null
  /** Connected at least once: a later 'connected' is a reconnect (events were missed meanwhile). */
  everConnected: boolean
}

export const useConnection = create<ConnectionStore>()(() => ({
  state: 'connecting',
  kind: null,
  everConnected: false
}))

/** Record the transport's state; true when this is a reconnect (connected again after having been). */
export function setConnectionState(state: ConnectionState): boolean {
  const { everConnected } = useConnection.getState()
  useConnection.setState({ state, everConnected: everConnected || state === 'connected' })
  return state === 'connected' && everConnected
}

export function setTransportKind(kind: TransportKind): void {
  useConnection.setState({ kind })
}
