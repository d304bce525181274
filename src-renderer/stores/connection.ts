import { create } from 'zustand'
import type { ConnectionState, TransportKind } from '../api'

interface ConnectionStore {
  state: ConnectionState
  kind: TransportKind | null
}

export const useConnection = create<ConnectionStore>()(() => ({ state: 'connecting', kind: null }))

export function setConnectionState(state: ConnectionState): void {
  useConnection.setState({ state })
}

export function setTransportKind(kind: TransportKind): void {
  useConnection.setState({ kind })
}
