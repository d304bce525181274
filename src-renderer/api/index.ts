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

export type TransportKind = 'electron' | 'websocket'

/**
 * Pick the transport: the Electron preload bridge when present, else the headless WebSocket. There is no
 * canned-data mode: to work on the UI without real data, run a real host on a demo home (`npm run serve -- --demo`).
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
  const transport = createWsTransport({ url: wsUrl(location, token), onState })
  onState(transport.state())
  const api = createClient(transport)
  setApi(api)
  return { api, kind: 'websocket' }
}
