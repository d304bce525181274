import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import type { EventBus } from './event-bus'
import type { Dispatcher } from './dispatch'
import type { Logger } from './log'
import { serveStatic } from './static-files'

export interface HeadlessServer {
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
}

const MAX_FRAME = 4 * 1024 * 1024

function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Headless transport: the built renderer over HTTP and the contract over WebSocket, bound to loopback.
 * Every API path needs the bearer token; the Host allowlist defeats DNS rebinding.
 */
export async function startHeadless(opts: HeadlessOptions): Promise<HeadlessServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url')
  let port = 0
  const hostAllowed = (req: IncomingMessage) => {
    const host = (req.headers.host ?? '').toLowerCase()
    return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host)
  }
  const bearer = (req: IncomingMessage) => {
    const auth = req.headers.authorization
    if (auth?.startsWith('Bearer ')) return auth.slice(7)
    return new URL(req.url ?? '/', 'http://x').searchParams.get('token')
  }

  const server: Server = createServer((req, res) => {
    if (!hostAllowed(req)) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('host not allowed')
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/api/health') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    if (url.pathname.startsWith('/api/')) {
      if (!tokenMatches(token, bearer(req))) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"ok":false,"error":{"code":"unauthorized","message":"missing or wrong token"}}')
      if (req.method !== 'POST' || url.pathname !== '/api/call') return void res.writeHead(404).end()
      let size = 0
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => {
        size += c.length
        if (size > MAX_FRAME) req.destroy()
        else chunks.push(c)
      })
      req.on('end', async () => {
        let body: { name?: unknown; input?: unknown }
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        } catch {
          return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"ok":false,"error":{"code":"invalid_input","message":"body must be JSON {name, input}"}}')
        }
        const result = await opts.dispatcher.invoke(String(body?.name), body?.input)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result))
      })
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end()
    serveStatic(opts.rendererDir, url.pathname, res)
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const origin = req.headers.origin
    const originOk = !origin || [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`].includes(origin)
    if (url.pathname !== '/ws' || !hostAllowed(req) || !originOk || !tokenMatches(token, url.searchParams.get('token'))) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n')
      socket.destroy()
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws))
  })

  const onConnection = (ws: WebSocket) => {
    const unsubscribe = opts.bus.subscribe((envelope) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ t: 'event', ...envelope }))
    })
    ws.on('close', unsubscribe)
    ws.on('error', () => unsubscribe())
    ws.on('message', async (data) => {
      let frame: { t?: unknown; id?: unknown; name?: unknown; input?: unknown }
      try {
        frame = JSON.parse(data.toString())
      } catch {
        return void ws.send(JSON.stringify({ t: 'result', id: null, ok: false, error: { code: 'invalid_input', message: 'frame must be JSON' } }))
      }
      if (frame?.t !== 'call') return
      const result = await opts.dispatcher.invoke(String(frame.name), frame.input)
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ t: 'result', id: frame.id ?? null, ...result }))
    })
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolveListen())
  })
  port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}/?token=${token}`
  return {
    url,
    port,
    token,
    close: () => new Promise<void>((done) => {
      for (const client of wss.clients) client.terminate()
      wss.close()
      server.close(() => done())
      server.closeAllConnections?.()
    })
  }
}
