import { createReadStream, statSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { extname, join, resolve, sep } from 'node:path'

/**
 * The one CSP. No remote `connect-src`: the Electron page talks over IPC, the headless page to its own origin
 * (`'self'` covers ws:// on the same host and port). No plugins, no `<base>`, no framing, no form posts.
 */
export function appCsp(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2'
}

/** Content type by file extension (the headless host and Electron's app protocol serve the same files). */
export function contentType(file: string): string {
  return TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'
}

/** The policy the headless host sends on every page: the same one Electron sends for its app protocol. */
export const CSP = appCsp()

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain', 'x-content-type-options': 'nosniff' }).end('not found')
}

/**
 * Serve a file from the built renderer. `pathname` must come from `safeDecodePath` (already decoded, no `..`,
 * no NUL); the prefix check below still keeps anything outside `root` a 404.
 */
export function serveStatic(root: string, pathname: string, res: ServerResponse, headOnly = false): void {
  const base = resolve(root)
  const rel = pathname === '/' || pathname === '' ? '/index.html' : pathname
  const file = join(base, rel)
  if (!file.startsWith(base + sep)) return notFound(res)
  let size: number
  try {
    const st = statSync(file)
    if (!st.isFile()) return notFound(res)
    size = st.size
  } catch {
    return notFound(res) // not there or not readable: a 404 either way, saying nothing about the disk
  }
  const type = contentType(file)
  const headers: Record<string, string | number> = {
    'content-type': type,
    'content-length': size,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=31536000, immutable',
    'content-security-policy': CSP,
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin'
  }
  res.writeHead(200, headers)
  if (headOnly) return void res.end()
  const stream = createReadStream(file)
  // A file removed between stat and read ends this response only.
  stream.on('error', () => res.destroy())
  stream.pipe(res)
}
