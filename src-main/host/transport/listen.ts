/**
 * Listening on a port, for the servers a user starts (`serve`, `api`, the Gateway page's API server): bind first,
 * before anything else is opened, and say in one line what went wrong and what to do about it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { errorMessage } from '@shared/contract/errors'

/** One line naming the port and the way out; other errors keep their own message. */
export function describeListenError(err: unknown, port: number | undefined): string {
  const code = (err as NodeJS.ErrnoException)?.code
  // Node's listen errors carry the port they tried (the API server may take it from config, not a flag).
  const tried = (err as { port?: unknown })?.port
  const shown = typeof tried === 'number' ? tried : (port ?? 0)
  if (code === 'EADDRINUSE') return `port ${shown} is already in use; choose another with --port N`
  if (code === 'EACCES') return `port ${shown} is not allowed for this user; choose another with --port N`
  if (code === 'EADDRNOTAVAIL') return `cannot listen on port ${shown}: the address is not available here`
  return errorMessage(err)
}

/**
 * Until the host is ready (takeOver), a request gets a 503 that says so and an upgrade is closed, so a client that
 * reconnects the moment the port is back fails fast and retries. Without these, Node keeps a request nobody handles
 * open: a browser's WebSocket handshake sent during startup then hung ~30 s before it gave up.
 */
const STARTING = 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'
const starting = (_req: IncomingMessage, res: ServerResponse) =>
  void res
    .writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' })
    .end('Caduceus is starting; retry in a moment\n')
const startingUpgrade = (_req: IncomingMessage, socket: Duplex) => void socket.end(STARTING)

/** The server's own handlers replace the "starting" answers; call right before attaching them. */
export function takeOver(server: Server): void {
  server.off('request', starting)
  server.off('upgrade', startingUpgrade)
}

/** An HTTP server already listening on host:port (answering "starting" until takeOver), or the listen error. */
export function bindHttp(port: number | undefined, host = '127.0.0.1'): Promise<Server> {
  const server = createServer()
  server.on('request', starting)
  server.on('upgrade', startingUpgrade)
  return new Promise<Server>((ok, fail) => {
    server.once('error', fail)
    server.listen(port ?? 0, host, () => {
      server.off('error', fail)
      ok(server)
    })
  })
}
