import type { CallResult, ContractError, EventEnvelope, Transport } from '@shared/contract'
import { MAX_CALL_FRAME_BYTES } from '@shared/contract/sessions-admin'

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'closed'

/** The subset of the browser WebSocket API we use; `ws` in Node satisfies it too (tests use a real server). */
interface SocketLike {
  readyState: number
  onopen: ((ev: unknown) => void) | null
  onclose: ((ev: unknown) => void) | null
  onerror: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  send(data: string): void
  close(): void
}
export type SocketFactory = (url: string) => SocketLike

export interface WsTransportOptions {
  url: string
  createSocket?: SocketFactory
  /** How long a call may wait for a connection before it fails. */
  connectTimeoutMs?: number
  /** How long a sent call may wait for its reply. */
  replyTimeoutMs?: number
  backoffInitialMs?: number
  backoffMaxMs?: number
  onState?: (state: ConnectionState) => void
  /** The host's limit on one call frame in bytes (the contract's MAX_CALL_FRAME_BYTES unless given). */
  maxFrameBytes?: number
}

interface WsTransport extends Transport {
  state(): ConnectionState
  close(): void
}

interface Pending {
  frame: string
  sent: boolean
  timer: ReturnType<typeof setTimeout>
  resolve: (r: CallResult) => void
}

const OPEN = 1
const fail = (code: ContractError['code'], message: string): CallResult => ({ ok: false, error: { code, message } })

/** Whether a frame's UTF-8 size passes `limit`, encoded only when its length leaves it in doubt (≤ 3 bytes a unit). */
const tooBig = (frame: string, limit: number) =>
  frame.length > limit || (frame.length * 3 > limit && new TextEncoder().encode(frame).length > limit)

/**
 * Headless transport: JSON frames over one WebSocket. Calls made while disconnected wait (bounded) for the
 * connection; calls in flight when the socket drops fail rather than being re-sent, because a resend could
 * run a non-idempotent request (sessions.resume) twice.
 */
export function createWsTransport(opts: WsTransportOptions): WsTransport {
  const createSocket = opts.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike)
  const connectTimeoutMs = opts.connectTimeoutMs ?? 15_000
  const replyTimeoutMs = opts.replyTimeoutMs ?? 120_000
  const initial = opts.backoffInitialMs ?? 250
  const max = opts.backoffMaxMs ?? 8_000
  const maxFrame = opts.maxFrameBytes ?? MAX_CALL_FRAME_BYTES
  const listeners = new Set<(e: EventEnvelope) => void>()
  const pending = new Map<number, Pending>()
  let nextId = 1
  let socket: SocketLike | null = null
  let state: ConnectionState = 'connecting'
  let attempts = 0
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null
  let closed = false

  const setState = (s: ConnectionState) => {
    if (s === state) return
    state = s
    opts.onState?.(s)
  }

  const settle = (id: number, result: CallResult) => {
    const p = pending.get(id)
    if (!p) return
    clearTimeout(p.timer)
    pending.delete(id)
    p.resolve(result)
  }

  const trySend = (id: number, p: Pending) => {
    if (p.sent || !socket || socket.readyState !== OPEN) return
    try {
      socket.send(p.frame)
    } catch {
      return // the socket closed under us: sent again once it reopens (p.sent stays false)
    }
    p.sent = true
    clearTimeout(p.timer)
    p.timer = setTimeout(() => settle(id, fail('unavailable', 'The host did not reply in time')), replyTimeoutMs)
  }

  const onMessage = (raw: unknown) => {
    let frame: {
      t?: unknown
      id?: unknown
      ok?: unknown
      output?: unknown
      error?: unknown
      event?: unknown
      payload?: unknown
    }
    try {
      frame = JSON.parse(typeof raw === 'string' ? raw : String(raw))
    } catch {
      return // a malformed frame must never take the client down
    }
    if (!frame || typeof frame !== 'object') return
    if (frame.t === 'result' && typeof frame.id === 'number') {
      if (frame.ok === true) settle(frame.id, { ok: true, output: frame.output })
      else {
        const e = frame.error as Partial<ContractError> | undefined
        settle(frame.id, {
          ok: false,
          error: {
            code: e?.code ?? 'internal',
            message: String(e?.message ?? 'Request failed'),
            ...(e?.field ? { field: e.field } : {})
          }
        })
      }
    } else if (frame.t === 'event' && typeof frame.event === 'string') {
      const envelope = { event: frame.event, payload: frame.payload } as EventEnvelope
      for (const fn of [...listeners]) {
        try {
          fn(envelope)
        } catch {
          /* one bad listener must not starve the others */
        }
      }
    }
  }

  const scheduleReconnect = () => {
    if (closed || reconnectTimer) return
    const delay = Math.min(max, initial * 2 ** Math.min(attempts, 16))
    attempts++
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null
      connect()
    }, delay)
  }

  const connect = () => {
    if (closed) return
    let s: SocketLike
    try {
      s = createSocket(opts.url)
    } catch {
      // the browser refused the socket (a blocked URL, too many open): try again later, as after a drop
      setState('reconnecting')
      scheduleReconnect()
      return
    }
    socket = s
    s.onopen = () => {
      if (socket !== s) return
      attempts = 0
      setState('connected')
      for (const [id, p] of pending) trySend(id, p)
    }
    s.onmessage = (ev) => {
      if (socket === s) onMessage(ev.data)
    }
    s.onerror = () => {
      /* onclose follows */
    }
    s.onclose = () => {
      if (socket !== s) return
      socket = null
      for (const [id, p] of [...pending])
        if (p.sent) settle(id, fail('unavailable', 'Connection to the host was lost before it replied'))
      if (closed) return setState('closed')
      setState('reconnecting')
      scheduleReconnect()
    }
  }

  connect()

  return {
    invoke(name, input) {
      if (closed) return Promise.resolve(fail('unavailable', 'Transport is closed'))
      const id = nextId++
      const frame = JSON.stringify({ t: 'call', id, name, input })
      // the host would close the socket on a bigger frame, failing every call in flight on it: refuse this one here
      if (tooBig(frame, maxFrame))
        return Promise.resolve(fail('invalid_input', `Request too large to send (over ${maxFrame} bytes as JSON)`))
      return new Promise<CallResult>((resolve) => {
        const p: Pending = {
          frame,
          sent: false,
          resolve,
          timer: setTimeout(
            () => settle(id, fail('unavailable', 'Not connected to the host (timed out waiting for the connection)')),
            connectTimeoutMs
          )
        }
        pending.set(id, p)
        trySend(id, p)
      })
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    state: () => state,
    close() {
      closed = true
      if (reconnectTimer) clearTimeout(reconnectTimer)
      for (const id of [...pending.keys()]) settle(id, fail('unavailable', 'Transport is closed'))
      const s = socket
      socket = null
      s?.close()
      setState('closed')
    }
  }
}
