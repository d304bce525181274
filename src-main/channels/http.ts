/**
 * HTTP plumbing of the API server: OpenAI-shaped errors, JSON and SSE writers, and the request guards
 * (body limit → 413, Host/Origin allowlists). The guard call sites are the `guard*` functions so they can
 * move onto the host's shared request-guard module without touching the routes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { parseJsonOr } from '@shared/contract/errors'

/**
 * Upstream's bound on a request (MAX_REQUEST_BYTES, 10 MB): a chat UI resends the whole history every turn, images as
 * base64 data URLs, so one phone photo in a conversation is already past the 4 MB the host's own transport takes.
 */
export const MAX_BODY_BYTES = 10_000_000

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly code: string | null = null,
    /** Extra response headers (429's Retry-After). */
    readonly headers: Record<string, string> = {},
    /** Extra fields of the error object (upstream's `hermes` block on a failed turn). */
    readonly extra: Record<string, unknown> = {}
  ) {
    super(message)
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): void {
  if (res.headersSent) return void res.end()
  res.writeHead(status, onWire({ 'content-type': 'application/json', ...headers }))
  res.end(JSON.stringify(body))
}

/** OpenAI's error shape: `{"error": {"message", "type", "code"}}`. */
export function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(
    res,
    err.status,
    { error: { message: err.message, type: err.type, param: null, code: err.code, ...err.extra } },
    err.headers
  )
}

/**
 * Header values as bytes on the wire: a session id or memory key may be any text (upstream's rule), and node writes a
 * header string one byte per character, so non-ASCII text goes out as its UTF-8 bytes, as upstream's server sends it.
 */
function onWire(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers))
    out[k] = /[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v
  return out
}

const tooLarge = () => new HttpError(413, 'Request body too large.', 'invalid_request_error', 'body_too_large')

/** A refusal by the host's server-level guard, in OpenAI's error shape (a 413 as the body reader's own). */
export function guardErrorBody(status: number, code: string, message: string): unknown {
  const e = status === 413 ? tooLarge() : new HttpError(status, message, 'invalid_request_error', code)
  return { error: { message: e.message, type: e.type, param: null, code: e.code } }
}

/**
 * A body sent compressed (`Content-Encoding: gzip`, `deflate` or `br`, as upstream's server takes it), inflated up to
 * `limit` bytes: a body that inflates past it is refused with 413 without ever being held whole.
 */
function decoded(encoding: string | undefined, raw: Buffer, limit: number): Buffer {
  const name = (encoding ?? '').trim().toLowerCase()
  if (!name || name === 'identity') return raw
  const inflate = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate: inflateSync, br: brotliDecompressSync }[name]
  if (!inflate) throw new HttpError(415, `Unsupported Content-Encoding: ${name}`)
  try {
    return inflate(raw, { maxOutputLength: limit })
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge()
    throw new HttpError(400, `Request body is not valid ${name} data`)
  }
}

/**
 * Read a JSON object body, refusing more than MAX_BODY_BYTES with 413 before buffering it all (a compressed body:
 * both as sent and inflated). `invalidJson`: the route's message for a body that is not JSON (upstream's /v1/runs
 * words it shorter than its other routes).
 */
export async function guardJsonBody(
  req: IncomingMessage,
  limit = MAX_BODY_BYTES,
  invalidJson = 'Invalid JSON in request body'
): Promise<Record<string, unknown>> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) throw tooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) throw tooLarge()
    chunks.push(chunk as Buffer)
  }
  const bytes = decoded(req.headers['content-encoding'], Buffer.concat(chunks), limit)
  // The charset the client declares, as upstream's server decodes it (a Latin-1 "café" is not "caf\uFFFD"); a BOM
  // stays in the text (ignoreBOM), so a body starting with one is refused as upstream refuses it.
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(req.headers['content-type'] ?? ''))?.[1] ?? 'utf-8'
  let text: string
  try {
    text = new TextDecoder(charset, { ignoreBOM: true }).decode(bytes)
  } catch {
    // RangeError: a label TextDecoder does not know
    throw new HttpError(415, `Unsupported charset ${JSON.stringify(charset.slice(0, 40))} in Content-Type`)
  }
  const body = parseJsonOr(text, undefined)
  if (body === undefined) throw new HttpError(400, invalidJson)
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new HttpError(400, 'Request body must be a JSON object')
  return body as Record<string, unknown>
}

/**
 * Hardening headers on every answer, errors and streams included (the values upstream sends): nothing here is a page
 * to frame, sniff, refer from or give device access to.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-xss-protection': '0'
}

/** Headers every later answer on `res` carries (writeHead merges them), so error answers get them too. */
export function presetHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v)
}

/** DNS-rebinding guard: on loopback only loopback Host headers are served. */
export function guardHost(req: IncomingMessage, boundLoopback: boolean, port: number): void {
  if (!boundLoopback) return
  const host = (req.headers.host ?? '').toLowerCase()
  if (![`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host))
    throw new HttpError(403, 'host not allowed', 'permission_error', 'host_not_allowed')
}

const ALLOWED_HEADERS = 'authorization, content-type, x-hermes-session-id, x-hermes-session-key, idempotency-key'

/**
 * The `X-Stainless-*` headers a preflight asks for: OpenAI's own SDKs send a set of them (language, OS, runtime, retry
 * count, helper…) that grows with their versions, so a browser app built on the SDK is allowed the ones it names.
 */
function sdkHeaders(req: IncomingMessage): string[] {
  const asked = req.headers['access-control-request-headers']
  return (typeof asked === 'string' ? asked.split(',') : [])
    .map((h) => h.trim().toLowerCase())
    .filter((h) => /^x-stainless-[a-z0-9-]{1,64}$/.test(h))
    .slice(0, 32)
}

/** Browsers may call only from API_SERVER_CORS_ORIGINS; returns the CORS headers for an allowed origin. */
export function guardOrigin(req: IncomingMessage, allowed: string[]): Record<string, string> {
  const origin = req.headers.origin
  if (!origin) return {}
  if (!allowed.includes(origin) && !allowed.includes('*'))
    throw new HttpError(403, `origin ${origin} not allowed`, 'permission_error', 'origin_not_allowed')
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-headers': [ALLOWED_HEADERS, ...sdkHeaders(req)].join(', '),
    'access-control-expose-headers': 'x-hermes-session-id, x-hermes-session-key, x-hermes-warnings, retry-after',
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    // Browsers may reuse a preflight this long (seconds), as upstream lets them.
    'access-control-max-age': '600',
    vary: 'origin'
  }
}

/** Response header carrying a turn's provider warnings (hermes-channels §1; README "API server"). */
const WARNINGS_HEADER = 'x-hermes-warnings'

/**
 * `X-Hermes-Warnings: ["…", …]`: a JSON array of the turn's warnings with every non-ASCII character escaped
 * (a header value must be Latin-1, one line); absent when there are none.
 */
export function warningsHeader(warnings: readonly string[] | undefined): Record<string, string> {
  if (!warnings?.length) return {}
  const json = JSON.stringify(warnings).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  )
  return { [WARNINGS_HEADER]: json }
}

/** Silence longer than this on an open stream gets a `: keepalive` comment (proxies drop idle streams). */
export const SSE_KEEPALIVE_MS = Number(process.env.CADUCEUS_SSE_KEEPALIVE_MS) || 15_000

/**
 * Start an SSE response. While it is open, a `: keepalive` comment goes out after each stretch of silence
 * (a long tool call or inline delegation), so a proxy between the caller and this server keeps the stream.
 */
export function openSse(
  res: ServerResponse,
  headers: Record<string, string> = {}
): (data: unknown, event?: string) => void {
  res.writeHead(
    200,
    onWire({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers
    })
  )
  let last = Date.now()
  const timer = setInterval(
    () => {
      if (res.writableEnded || res.destroyed) return clearInterval(timer)
      if (Date.now() - last < SSE_KEEPALIVE_MS) return
      res.write(': keepalive\n\n')
      last = Date.now()
    },
    Math.max(10, Math.floor(SSE_KEEPALIVE_MS / 4))
  )
  timer.unref()
  res.once('close', () => clearInterval(timer))
  return (data, event) => {
    if (res.writableEnded) return
    last = Date.now()
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
  }
}
