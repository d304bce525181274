// The guards every HTTP server in host/ shares (the headless host, the OpenAI-compatible API server).
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../log/log'
import { guardedListener, guardServer, parseJsonObject, readBodyLimited, safeDecodePath } from './request-guards'
import { hostAllowed, originAllowed, parseAllowedHosts } from './allowed-hosts'

describe('safeDecodePath', () => {
  it('decodes a clean path and its query', () => {
    const t = safeDecodePath('/assets/a%20b.js?token=x%2By&z')
    expect(t).toMatchObject({ ok: true, pathname: '/assets/a b.js' })
    expect(t.ok && t.query.get('token')).toBe('x+y')
  })

  it.each([
    ['/%', 'malformed escape'],
    ['/%zz', 'malformed escape'],
    ['/%E0%A4%A', 'truncated UTF-8'],
    ['/%C0%AE%C0%AE/etc/passwd', 'overlong UTF-8 dot'],
    ['/%c0%af', 'overlong slash'],
    ['/%ED%A0%80', 'lone surrogate'],
    ['/a/%2e%2e/b', 'encoded ..'],
    ['/a/../b', 'raw ..'],
    ['/%2E/x', 'encoded .'],
    ['/x%00.js', 'NUL'],
    ['/x%0d%0aSet-Cookie:a', 'CRLF'],
    ['/a%5c..%5cb', 'encoded backslash'],
    ['http://[::1', 'absolute form'],
    ['*', 'asterisk form'],
    ['', 'empty'],
    ['/a b', 'raw space'],
    ['/\u00e9', 'raw non-ASCII'],
    ['/a'.padEnd(9000, 'a'), 'over 8 KB']
  ])('refuses case %# without throwing', (raw) => {
    const t = safeDecodePath(raw)
    expect(t.ok).toBe(false)
  })

  it('a bad escape in the query stays literal instead of throwing', () => {
    const t = safeDecodePath('/api/call?token=%')
    expect(t.ok && t.query.get('token')).toBe('%')
  })
})

describe('parseJsonObject', () => {
  it('only objects pass', () => {
    expect(parseJsonObject('{"name":"x"}')).toEqual({ name: 'x' })
    for (const bad of ['[1]', '1', 'null', '"s"', '{', '']) expect(parseJsonObject(bad)).toBeNull()
  })
})

describe('readBodyLimited + guardedListener on a real server', () => {
  let server: Server
  let port: number
  const LIMIT = 1024
  beforeAll(async () => {
    server = guardServer(
      createServer(
        guardedListener(createLogger(), async (req, res) => {
          if (req.url === '/throw') throw new Error('boom at /secret/path')
          if (req.url === '/reject') return Promise.reject(new Error('rejected'))
          const body = await readBodyLimited(req, res, LIMIT)
          if (body === null) return
          res.end(`got ${body.length}`)
        })
      )
    )
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      })
  )

  const send = (path: string, chunks: Buffer[], headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; uploadError?: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', reject)
      const next = (i: number) => {
        if (i >= chunks.length) return void req.end()
        req.write(chunks[i], () => setImmediate(() => next(i + 1)))
      }
      next(0)
    })

  it('reads a body under the limit', async () => {
    expect(await send('/', [Buffer.alloc(100)])).toMatchObject({ status: 200, body: 'got 100' })
  })

  it('answers 413 to a chunked upload that passes the limit, while it is still uploading, without a reset', async () => {
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(4096))
    const r = await send('/', chunks)
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body).error.code).toBe('too_large')
  })

  it('answers 413 at once to a declared Content-Length over the limit', async () => {
    const r = await send('/', [Buffer.alloc(LIMIT + 1)], { 'content-length': String(LIMIT + 1) })
    expect(r.status).toBe(413)
  })

  it('a throwing or rejecting handler answers 500 without the detail', async () => {
    for (const path of ['/throw', '/reject']) {
      const r = await send(path, [])
      expect(r.status).toBe(500)
      expect(r.body).not.toContain('secret')
      expect(r.body).not.toMatch(/\bat\s/)
    }
    expect((await send('/', [Buffer.from('ok')])).status).toBe(200)
  })
})

describe('Host and Origin rules of the headless host (DNS rebinding, cross-site WebSocket)', () => {
  it('accepts a loopback name on any port (an SSH tunnel to another local port), refuses other names', () => {
    for (const host of ['127.0.0.1:8765', 'localhost:9000', 'LOCALHOST:9000', '[::1]:1', 'localhost'])
      expect(hostAllowed(host, []), host).toBe(true)
    for (const host of [
      'evil.example:8765',
      'evil.example',
      'localhost.:9000',
      'localhost.evil.example:9000',
      '127.0.0.1.nip.io:8765',
      'localhost:9000@evil.example',
      '',
      undefined
    ])
      expect(hostAllowed(host, []), String(host)).toBe(false)
  })

  it('accepts an allowed name (a reverse proxy), any port, and only that one', () => {
    const allowed = parseAllowedHosts(['Proxy.Example', 'other.example,[2001:db8::1]'])
    expect(allowed).toEqual(['proxy.example', 'other.example', '[2001:db8::1]'])
    for (const host of ['proxy.example', 'PROXY.example:8443', '[2001:db8::1]:443'])
      expect(hostAllowed(host, allowed), host).toBe(true)
    for (const host of ['evil.example', 'sub.proxy.example', 'proxy.example.evil.example'])
      expect(hostAllowed(host, allowed), host).toBe(false)
  })

  it('lets a WebSocket origin through only from a loopback page or an allowed name, http or https', () => {
    const allowed = ['proxy.example']
    for (const origin of [
      undefined,
      'http://localhost:9000',
      'http://127.0.0.1:8765',
      'http://[::1]:8765',
      'https://proxy.example',
      'http://proxy.example:8080'
    ])
      expect(originAllowed(origin, allowed), String(origin)).toBe(true)
    for (const origin of [
      'https://evil.example',
      'http://evil.example:8765',
      'null',
      'file://',
      'ws://localhost:9000',
      'https://proxy.example.evil.example',
      'https://proxy.example/path'
    ])
      expect(originAllowed(origin, allowed), origin).toBe(false)
    expect(originAllowed('https://proxy.example', [])).toBe(false)
  })

  it('refuses what is not a bare host name, saying what to give instead', () => {
    expect(() => parseAllowedHosts(['https://proxy.example'])).toThrow(/without http/)
    expect(() => parseAllowedHosts(['proxy.example:443'])).toThrow(/without a port/)
    for (const bad of ['*', '*.example', 'proxy.example/caduceus', '-x', 'a..b'])
      expect(() => parseAllowedHosts([bad])).toThrow()
    expect(parseAllowedHosts(['', ' , '])).toEqual([])
  })
})
