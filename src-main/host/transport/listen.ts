/**
 * Listening on a port, for the servers a user starts (`serve`, `api`, the Gateway page's API server): bind first,
 * before anything else is opened, and say in one line what went wrong and what to do about it.
 */
import { createServer, type Server } from 'node:http'
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

/** An HTTP server already listening on host:port (no request handler yet), or the listen error. */
export function bindHttp(port: number | undefined, host = '127.0.0.1'): Promise<Server> {
  const server = createServer()
  return new Promise<Server>((ok, fail) => {
    server.once('error', fail)
    server.listen(port ?? 0, host, () => {
      server.off('error', fail)
      ok(server)
    })
  })
}
