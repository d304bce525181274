import {
  CaduceusError,
  createClient,
  type CaduceusApi,
  type CallResult,
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
 * Chromium refuses a `keepalive` request (the fetch rejects, nothing is sent) once the bodies of the page's keepalive
 * requests in flight would pass 64 KiB in all. The calls made while leaving stay under this, with room to spare.
 */
const KEEPALIVE_BUDGET = 60_000

/** What the calls made while the page goes away may still carry, in body bytes (one per leave). */
export interface LeavingBudget {
  left: number
}

/** A fresh budget for one leave: unbounded over Electron's IPC, under Chromium's keepalive quota over HTTP. */
export function leavingBudget(): LeavingBudget {
  return { left: ipc ? Infinity : KEEPALIVE_BUDGET }
}

/** The body, in UTF-8 bytes, that `callWhileLeaving` sends for this call over HTTP. */
export function leavingBytes<K extends RequestName>(name: K, input: RequestInput<K>): number {
  return new TextEncoder().encode(JSON.stringify({ name, input })).length
}

/**
 * A call that must reach the host though the page is going away (`pagehide`: the tab or window closing, a reload).
 * Electron's IPC message leaves at once and the main process runs it whatever becomes of the window. Over the
 * headless host it is a `keepalive` HTTP request, which the browser completes after the page is gone; a WebSocket
 * frame written now may be dropped with the socket. With a `budget`, a call whose body does not fit what is left is
 * not sent (false) — the browser would drop it silently — and one sent spends it. Neither path confirms delivery
 * unless the page lives long enough to read the host's answer: `onAnswer` gets it then (never if the page died first).
 */
export function callWhileLeaving<K extends RequestName>(
  name: K,
  input: RequestInput<K>,
  budget?: LeavingBudget,
  onAnswer?: (result: CallResult) => void
): boolean {
  if (ipc) {
    void ipc.invoke(name, input).then(onAnswer, () => undefined)
    return true
  }
  const body = JSON.stringify({ name, input })
  if (budget) {
    const bytes = new TextEncoder().encode(body).length
    if (bytes > budget.left) return false
    budget.left -= bytes
  }
  const token = storedToken()
  // relative to the page, as probeHost's: the app may be served under a reverse proxy's sub-path
  void fetch('api/call', {
    method: 'POST',
    keepalive: true,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body
  })
    .then(async (res) => onAnswer?.((await res.json()) as CallResult))
    .catch(() => undefined)
  return true
}
