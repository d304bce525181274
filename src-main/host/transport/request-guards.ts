/**
 * Boundary guards every HTTP transport in host/ uses (the headless UI host, the OpenAI-compatible API server).
 * They validate BEFORE anything parses, so no request — however malformed — can throw out of a handler:
 *
 *   const server = createServer(guardedListener(log, async (req, res) => {
 *     const target = safeDecodePath(req.url)            // never throws
 *     if (!target.ok) return sendError(res, target.status, 'invalid_request', target.message)
 *     const body = await readBodyLimited(req, res, 4 << 20)  // null = already answered (400/413)
 *     if (body === null) return
 *     const json = parseJsonObject(body)                 // never throws
 *     ...
 *   }))
 *   guardServer(server, log, { bodyLimit })              // malformed request lines, timeouts, 100-continue
 *
 * Errors answer with `{ ok: false, error: { code, message } }` (a server with its own wire shape, such as the API
 * server's OpenAI errors, hands guardServer an `errorBody`) and never carry a path or a stack.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from '@shared/contract/log'
import { describeError } from '../log'
import { parseJsonOr } from '@shared/contract/errors'

export type DecodedTarget =
  { ok: true; pathname: string; query: URLSearchParams } | { ok: false; status: 400 | 414; message: string }

const MAX_TARGET = 8 * 1024
// Request-target bytes allowed before decoding: printable ASCII without space, quotes, angle brackets or backslash.
const TARGET_CHARS = /^[\x21\x23-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/

/**
 * Decode a request target (`req.url`) into a path and a query without throwing. Refuses anything that is not an
 * origin-form path (`http://…`, `*`), control characters, malformed or overlong (non-shortest UTF-8) escapes,
 * NUL, backslashes, and `.`/`..` segments whether raw or encoded — so a path that comes out is safe to join.
 */
export function safeDecodePath(raw: string | undefined): DecodedTarget {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, status: 400, message: 'missing request target' }
  if (raw.length > MAX_TARGET) return { ok: false, status: 414, message: 'request target too long' }
  if (raw[0] !== '/') return { ok: false, status: 400, message: 'request target must be a path' }
  if (!TARGET_CHARS.test(raw))
    return { ok: false, status: 400, message: 'request target has characters that are not allowed' }
  const q = raw.indexOf('?')
  const rawPath = (q < 0 ? raw : raw.slice(0, q)).split('#')[0]!
  let pathname: string
  try {
    // decodeURIComponent rejects malformed escapes and invalid UTF-8 (overlong forms like %C0%AE included).
    pathname = decodeURIComponent(rawPath)
  } catch {
    // URIError, the only thing decodeURIComponent throws
    return { ok: false, status: 400, message: 'malformed percent-encoding in path' }
  }
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f\\]/.test(pathname))
    return { ok: false, status: 400, message: 'path has characters that are not allowed' }
  if (pathname.split('/').some((seg) => seg === '.' || seg === '..'))
    return { ok: false, status: 400, message: 'path may not contain . or .. segments' }
  // URLSearchParams never throws: a bad escape in the query stays literal.
  const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1).split('#')[0])
  return { ok: true, pathname, query }
}

/** The JSON body an error is answered with, for a server whose clients read errors in their own shape. */
export type ErrorBody = (status: number, code: string, message: string) => unknown
const hostErrorBody: ErrorBody = (_status, code, message) => ({ ok: false, error: { code, message } })

/** Answer with a JSON error once (a no-op if the response already started). */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  body: ErrorBody = hostErrorBody
): void {
  if (res.headersSent || res.writableEnded) return
  res.writeHead(status, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', ...headers })
  res.end(JSON.stringify(body(status, code, message)))
}

// After a 413 the rest of an upload is read and dropped (so the client sees the answer, not a reset) — up to this.
const DRAIN_CAP = 64 * 1024 * 1024

/**
 * Read a request body of at most `limit` bytes. Resolves with the bytes, or with `null` after answering the
 * request itself: 400 for a Content-Length that is not a plain non-negative integer, 413 as soon as the declared
 * or received size passes the limit — while the client is still uploading, without resetting the connection.
 */
export function readBodyLimited(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | null> {
  const declared = req.headers['content-length']
  if (declared !== undefined && !/^\d{1,15}$/.test(declared)) {
    sendError(res, 400, 'invalid_request', 'Content-Length must be a non-negative integer', { connection: 'close' })
    req.resume()
    return Promise.resolve(null)
  }
  const tooLarge = () => {
    sendError(res, 413, 'too_large', `request body is over the ${limit}-byte limit`)
    // Keep-alive (no `connection: close`): Node reads and drops the rest of the body instead of resetting the
    // socket mid-upload; past DRAIN_CAP we do close it.
    let drained = 0
    req.removeAllListeners('data')
    req.on('data', (c: Buffer) => {
      drained += c.length
      if (drained > DRAIN_CAP) req.socket.destroy()
    })
    req.resume()
  }
  if (declared !== undefined && Number(declared) > limit) {
    tooLarge()
    return Promise.resolve(null)
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (value: Buffer | null) => {
      if (done) return
      done = true
      resolve(value)
    }
    req.on('data', (c: Buffer) => {
      if (done) return
      size += c.length
      if (size > limit) {
        tooLarge()
        finish(null)
      } else chunks.push(c)
    })
    req.on('end', () => finish(Buffer.concat(chunks)))
    req.on('error', () => finish(null))
    req.on('close', () => finish(null))
  })
}

/** Parse a body as a JSON object without throwing; arrays, primitives and bad JSON are `null`. */
export function parseJsonObject(body: Buffer | string): Record<string, unknown> | null {
  const v = parseJsonOr(typeof body === 'string' ? body : body.toString('utf8'), null)
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

/**
 * Wrap a request listener so a throw or a rejected promise answers that one request with a generic 500 (the
 * detail goes to the log, never to the client) instead of reaching the process.
 */
export function guardedListener(
  log: Logger,
  handler: (req: IncomingMessage, res: ServerResponse) => unknown
): (req: IncomingMessage, res: ServerResponse) => void {
  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    log.error('http', `request ${req.method} failed: ${describeError(err)}`)
    if (res.headersSent) res.destroy()
    else sendError(res, 500, 'internal', 'internal error')
  }
  return (req, res) => {
    try {
      const out = handler(req, res)
      if (out instanceof Promise) out.catch((err) => fail(req, res, err))
    } catch (err) {
      fail(req, res, err)
    }
  }
}

/**
 * Server-level guards: a request Node's parser refuses (bad request line, bad Content-Length, bad headers) gets a
 * plain 400 on that socket only; slow or idle clients are timed out.
 */
export function guardServer(
  server: Server,
  log?: Logger,
  opts: { bodyLimit?: number; errorBody?: ErrorBody } = {}
): Server {
  const body = opts.errorBody ?? hostErrorBody
  // `Expect: 100-continue` with a declared body over the limit: answer 413 before the client sends a byte of it.
  if (opts.bodyLimit !== undefined) {
    const limit = opts.bodyLimit
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      const declared = req.headers['content-length']
      if (declared !== undefined && /^\d{1,15}$/.test(declared) && Number(declared) > limit) {
        return sendError(
          res,
          413,
          'too_large',
          `request body is over the ${limit}-byte limit`,
          { connection: 'close' },
          body
        )
      }
      res.writeContinue()
      server.emit('request', req, res)
    })
  }
  server.headersTimeout = 20_000
  server.requestTimeout = 120_000
  server.keepAliveTimeout = 5_000
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE')
      log?.debug('http', `client error: ${err.code ?? err.message}`)
    if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) return void socket.destroy()
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
    const text = JSON.stringify(body(status, 'invalid_request', 'malformed request'))
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
    )
  })
  return server
}
