import { CaduceusError, createClient, type CaduceusApi, type Transport } from '@shared/contract'
import { takeToken, wsUrl } from './token'
import { createWsTransport, type ConnectionState } from './ws-transport'

export type { ConnectionState } from './ws-transport'
export { createWsTransport } from './ws-transport'
export { takeToken, wsUrl } from './token'

declare global {
  interface Window {
    /** Exposed by the Electron preload (contextBridge). */
    caduceus?: Transport
  }
}

let current: CaduceusApi | null = null

/** The API every store uses. Throws until `connectApi` ran (tests connect it to a fake transport too). */
export function getApi(): CaduceusApi {
  if (!current) throw new CaduceusError('unavailable', 'Not connected to the host yet')
  return current
}

function setApi(api: CaduceusApi | null): void {
  current = api
}

export type TransportKind = 'electron' | 'websocket' | 'fake'

/**
 * Pick the transport: the Electron preload bridge when present, else the headless WebSocket.
 * `?fake=1` without a token serves canned data so the UI can be developed without a host.
 */
export async function connectApi(
  onState: (s: ConnectionState) => void
): Promise<{ api: CaduceusApi; kind: TransportKind }> {
  if (window.caduceus) {
    onState('connected')
    const api = createClient(window.caduceus)
    setApi(api)
    return { api, kind: 'electron' }
  }
  const token = takeToken(window)
  if (!token && new URLSearchParams(location.search).get('fake') === '1') {
    const { createFakeTransport } = await import('./fake-transport')
    onState('connected')
    const api = createClient(createFakeTransport())
    setApi(api)
    return { api, kind: 'fake' }
  }
  const transport = createWsTransport({ url: wsUrl(location, token), onState })
  onState(transport.state())
  const api = createClient(transport)
  setApi(api)
  return { api, kind: 'websocket' }
}
