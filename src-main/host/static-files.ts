import { createReadStream, existsSync, statSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { extname, join, normalize, resolve, sep } from 'node:path'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2'
}

export const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self' ws: wss:; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

/** Serve a file from the built renderer; anything outside `root` (path traversal) is a 404. */
export function serveStatic(root: string, urlPath: string, res: ServerResponse): void {
  const base = resolve(root)
  let rel = decodeURIComponent(urlPath.split('?')[0] ?? '/')
  if (rel === '/' || rel === '') rel = '/index.html'
  const file = normalize(join(base, rel))
  if (!file.startsWith(base + sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    return
  }
  const type = TYPES[extname(file)] ?? 'application/octet-stream'
  const headers: Record<string, string> = {
    'content-type': type, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer',
    'cache-control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=31536000, immutable'
  }
  if (type.startsWith('text/html')) headers['content-security-policy'] = CSP
  res.writeHead(200, headers)
  createReadStream(file).pipe(res)
}
