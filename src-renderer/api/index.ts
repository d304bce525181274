import {
  CaduceusError,
  createClient,
  type CaduceusApi,
  type RequestInput,
  type RequestName,
  type Transport
} from '@shared/contract'
import { storedToken, takeToken, wsUrl } from './token'
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
/** The Electron preload's transport, when that is how this window talks to the host. */
let ipc: Transport | null = null

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
    ipc = window.caduceus
    onState('connected')
    const api = createClient(window.caduceus)
    setApi(api)
    return { api, kind: 'electron' }
  }
  ipc = null
  const token = takeToken(window)
  const transport = createWsTransport({ url: wsUrl(location, token), onState })
  onState(transport.state())
  const api = createClient(transport)
  setApi(api)
  return { api, kind: 'websocket' }
}

/**
 * A call that must reach the host though the page is going away (`pagehide`: the tab or window closing, a reload).
 * Electron's IPC message leaves at once and the main process runs it whatever becomes of the window. Over the
 * headless host it is a `keepalive` HTTP request, which the browser completes after the page is gone; a WebSocket
 * frame written now may be dropped with the socket. Nobody is left to read an answer.
 */
export function callWhileLeaving<K extends RequestName>(name: K, input: RequestInput<K>): void {
  if (ipc) {
    void ipc.invoke(name, input).catch(() => undefined)
    return
  }
  const token = storedToken()
  void fetch('/api/call', {
    method: 'POST',
    keepalive: true,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ name, input })
  }).catch(() => undefined)
}
