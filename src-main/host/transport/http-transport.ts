import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Dispatcher, EventBus } from '../dispatch'
import { describeError } from '../log'
import type { Logger } from '@shared/contract/log'
import {
  guardedListener,
  guardServer,
  parseJsonObject,
  readBodyLimited,
  safeDecodePath,
  sendError
} from './request-guards'
import { bindHttp, takeOver } from './listen'
import { serveStatic } from './static-files'
import { parseCallFrame } from './call-frame'
import { DEFAULT_OUTBOUND, outbound, type OutboundBudget } from './ws-outbound'
import { MAX_CALL_FRAME_BYTES } from '@shared/contract/sessions-admin'
import { hostAllowed, originAllowed } from './allowed-hosts'

interface HeadlessServer {
  url: string
  port: number
  token: string
  close(): Promise<void>
}

export interface HeadlessOptions {
  dispatcher: Dispatcher
  bus: EventBus
  log: Logger
  rendererDir: string
  port?: number
  token?: string
  /** A server already listening (cli serve binds before opening any state.db); else one is bound on `port`. */
  bound?: Server
  /** Outbound budget per WebSocket client (bytes queued unread, calls in flight, stall time); ws-outbound.ts. */
  outbound?: Partial<OutboundBudget>
  /** Host names besides loopback the browser may use (a reverse proxy's), from parseAllowedHosts; allowed-hosts.ts. */
  allowHosts?: readonly string[]
}

/**
 * A WebSocket call frame may be as large as the contract's (MAX_CALL_FRAME_BYTES: the largest import, escaped);
 * the UI sends everything over it. `POST /api/call`, for scripts, keeps a smaller body limit and answers a bigger
 * body 413, which fails that request only.
 */
const MAX_HTTP_BODY = 4 * 1024 * 1024

function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** JSON for the wire; an output that cannot be serialised becomes an internal error, not a thrown request. */
function toJson(value: unknown, log: Logger): string {
  try {
    return JSON.stringify(value)
  } catch (err) {
    log.error('http', `response not serialisable: ${describeError(err)}`)
    return JSON.stringify({ ok: false, error: { code: 'internal', message: 'internal error' } })
  }
}

/**
 * Headless transport: the built renderer over HTTP and the contract over WebSocket, bound to loopback.
 * Every API path needs the bearer token; the Host allowlist defeats DNS rebinding (allowed-hosts.ts). Every input goes through
 * request-guards first, so one malformed request answers itself and nothing else.
 */
export async function startHeadless(opts: HeadlessOptions): Promise<HeadlessServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url')
  const { log } = opts
  const allowHosts = opts.allowHosts ?? []
  const hostOk = (req: IncomingMessage) => hostAllowed(req.headers.host, allowHosts)
  const bearer = (req: IncomingMessage, query: URLSearchParams) => {
    const auth = req.headers.authorization
    if (auth?.startsWith('Bearer ')) return auth.slice(7)
    return query.get('token')
  }

  const server: Server = opts.bound ?? (await bindHttp(opts.port))
  const port = (server.address() as AddressInfo).port
  takeOver(server)
  guardServer(server, log, { bodyLimit: MAX_HTTP_BODY }).on(
    'request',
    guardedListener(log, async (req, res) => {
      if (!hostOk(req)) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('host not allowed')
      const target = safeDecodePath(req.url)
      if (!target.ok) return sendError(res, target.status, 'invalid_request', target.message)
      const { pathname, query } = target
      if (pathname === '/api/health')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
      if (pathname.startsWith('/api/')) {
        if (!tokenMatches(token, bearer(req, query)))
          return sendError(res, 401, 'unauthorized', 'missing or wrong token')
        if (req.method !== 'POST' || pathname !== '/api/call')
          return sendError(res, 404, 'not_found', 'no such endpoint')
        const body = await readBodyLimited(req, res, MAX_HTTP_BODY)
        if (body === null) return
        const call = parseCallFrame(parseJsonObject(body))
        if (!call.ok)
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(toJson({ ok: false, error: call.error }, log))
        const result = await opts.dispatcher.invoke(call.name, call.input)
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(toJson(result, log))
      }
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendError(res, 405, 'method_not_allowed', 'only GET and HEAD here')
      serveStatic(opts.rendererDir, pathname, res, req.method === 'HEAD')
    })
  )

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CALL_FRAME_BYTES })
  server.on('upgrade', (req, socket, head) => {
    try {
      const target = safeDecodePath(req.url)
      if (
        !target.ok ||
        target.pathname !== '/ws' ||
        !hostOk(req) ||
        !originAllowed(req.headers.origin, allowHosts) ||
        !tokenMatches(token, target.query.get('token'))
      ) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
        return
      }
      socket.on('error', () => socket.destroy())
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws))
    } catch (err) {
      log.error('ws', `upgrade failed: ${describeError(err)}`)
      socket.destroy()
    }
  })

  const budget = { ...DEFAULT_OUTBOUND, ...opts.outbound }
  const onConnection = (ws: WebSocket) => {
    let inFlight = 0
    const drop = (why: string) => {
      if (ws.readyState !== ws.OPEN) return
      log.warn('ws', `client dropped: ${why}`)
      ws.close(1008, why)
      // A reader that is gone never takes the close frame: free the socket (and what is queued on it) soon after.
      setTimeout(() => ws.terminate(), 1000).unref()
    }
    const out = outbound(ws, budget, (value) => toJson(value, log), drop)
    const send = (value: unknown) => out.reply(value)
    const unsubscribe = opts.bus.subscribe((envelope) => out.event(envelope))
    ws.on('close', () => {
      unsubscribe()
      out.close()
    })
    // Protocol errors (bad frames, over-size payloads): ws closes the socket itself; only this client is affected.
    ws.on('error', () => {
      unsubscribe()
      out.close()
    })
    ws.on('message', (data, isBinary) => {
      void (async () => {
        const frame = isBinary ? null : parseJsonObject(data.toString())
        if (!frame)
          return send({
            t: 'result',
            id: null,
            ok: false,
            error: { code: 'invalid_input', message: 'frame must be a JSON object' }
          })
        if (frame.t !== 'call') return
        const id = typeof frame.id === 'string' || typeof frame.id === 'number' ? frame.id : null
        const call = parseCallFrame(frame)
        if (!call.ok) return send({ t: 'result', id, ok: false, error: call.error })
        if (++inFlight > budget.calls) return drop('too many calls in flight')
        try {
          const result = await opts.dispatcher.invoke(call.name, call.input)
          send({ t: 'result', id, ...result })
        } finally {
          inFlight--
        }
      })().catch((err) => log.error('ws', `frame failed: ${describeError(err)}`))
    })
  }

  const url = `http://127.0.0.1:${port}/?token=${token}`
  return {
    url,
    port,
    token,
    close: () =>
      new Promise<void>((done) => {
        for (const client of wss.clients) client.terminate()
        wss.close()
        server.close(() => done())
        server.closeAllConnections?.()
      })
  }
}
