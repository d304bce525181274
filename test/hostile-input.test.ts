// Issue 10 item 1: a real `caduceus serve` takes every hostile HTTP/WS input we know of — malformed escapes,
// bad request lines, bad Content-Length, over-size bodies, non-string call names, fuzzed request lines and
// frames — answers each one alone, keeps /api/health answering after every case, and never leaks a path or stack.
import { connect } from 'node:net'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { health, prng, rawRequest, wsFrame, type RawResponse } from './helpers/raw-http'
import { startServe, type ServeProcess } from './helpers/serve-process'
import { MAX_CALL_FRAME_BYTES } from '@shared/contract/sessions-admin'

let host: ServeProcess
let H: string

beforeAll(async () => {
  host = await startServe()
  // A file beside (outside) the UI folder: no traversal may reach it.
  writeFileSync(join(host.base, 'secret.txt'), 'TOPSECRET')
  H = `Host: 127.0.0.1:${host.port}`
}, 60_000)

afterAll(async () => {
  await host?.close()
})

/** Nothing a client gets back may carry a file path, a stack frame or the secret beside the UI folder. */
function expectNoLeak(r: RawResponse): void {
  const text = `${r.head}\n${r.body}`
  expect(text).not.toContain('TOPSECRET')
  expect(text).not.toContain(host.base)
  expect(text).not.toMatch(/\n\s+at\s|node:internal|\.ts:\d+|\/work\/|\/tmp\//)
}

async function expectAliveAfter(r: RawResponse): Promise<void> {
  expectNoLeak(r)
  expect(await health(host.port)).toBe('{"ok":true}')
  expect(host.alive()).toBe(true)
}

const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\n${H}\r\n${extra}Connection: close\r\n\r\n`
const post = (body: string, headers = '') =>
  `POST /api/call HTTP/1.1\r\n${H}\r\nAuthorization: Bearer ${host.token}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`

describe('hostile HTTP against a real serve', () => {
  it.each([
    '/%',
    '/%zz',
    '/%E0%A4%A',
    '/%C0%AE%C0%AE/secret.txt',
    '/%c0%af',
    '/%ED%A0%80',
    '/..%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/%00',
    '/index.html%00.js',
    '/x%0d%0aSet-Cookie:%20a=b',
    '/..%5csecret.txt',
    '/api/health%',
    '/api/call?token=%',
    '/%ff%fe',
    '/%F0%9F%98',
    '/%25%',
    '//secret.txt',
    '/./index.html'
  ])('GET %s answers 4xx or the UI, never the secret, and the host lives', async (target) => {
    const r = await rawRequest(host.port, get(target))
    expect(r.status).not.toBeNull()
    expect(r.status === 200 ? r.body : '').not.toContain('TOPSECRET')
    if (r.status !== 200) expect(r.status! >= 400 && r.status! < 500).toBe(true)
    await expectAliveAfter(r)
  })

  it.each([
    ['absolute-form with a broken IPv6 host', `GET http://[::1 HTTP/1.1\r\n${H}\r\n\r\n`],
    ['absolute-form', `GET http://127.0.0.1:1/ HTTP/1.1\r\n${H}\r\n\r\n`],
    ['asterisk-form', `OPTIONS * HTTP/1.1\r\n${H}\r\n\r\n`],
    ['unknown method', `BREW /%/ HTTP/1.1\r\n${H}\r\n\r\n`],
    ['not HTTP at all', 'GARBAGE\r\n\r\n'],
    ['HTTP/9.9', `GET / HTTP/9.9\r\n${H}\r\n\r\n`],
    ['HTTP/0.9 style', 'GET /\r\n\r\n'],
    ['NUL in the request line', `GET /\u0000 HTTP/1.1\r\n${H}\r\n\r\n`],
    ['space in the target', `GET /a b/c HTTP/1.1\r\n${H}\r\n\r\n`],
    ['header without a colon', `GET / HTTP/1.1\r\n${H}\r\nBroken header\r\n\r\n`],
    ['oversized header', `GET / HTTP/1.1\r\n${H}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['bare LF lines', `GET /% HTTP/1.1\n${H}\n\n`],
    ['wrong Host', 'GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n'],
    ['no Host', 'GET / HTTP/1.1\r\n\r\n'],
    ['negative Content-Length', `POST /api/call HTTP/1.1\r\n${H}\r\nContent-Length: -1\r\n\r\n`],
    ['non-numeric Content-Length', `POST /api/call HTTP/1.1\r\n${H}\r\nContent-Length: abc\r\n\r\n`],
    ['exponent Content-Length', `POST /api/call HTTP/1.1\r\n${H}\r\nContent-Length: 1e3\r\n\r\n`],
    [
      'two different Content-Lengths',
      `POST /api/call HTTP/1.1\r\n${H}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`
    ],
    [
      'Content-Length and chunked',
      `POST /api/call HTTP/1.1\r\n${H}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`
    ],
    ['bad chunk size', `POST /api/call HTTP/1.1\r\n${H}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n`]
  ])('%s: answers 4xx on that socket only', async (_label, payload) => {
    const r = await rawRequest(host.port, payload)
    if (r.status !== null) expect(r.status >= 400 && r.status < 500).toBe(true)
    await expectAliveAfter(r)
  })

  it.each([
    ['{"name":{"toString":1}}', 400],
    ['{"name":{"valueOf":1,"toString":1}}', 400],
    ['{"name":["sessions.list"]}', 400],
    ['{"name":null}', 400],
    ['{"name":42}', 400],
    ['{"name":"__proto__"}', 400],
    ['{"name":"constructor"}', 400],
    ['{"name":"toString"}', 400],
    ['{"name":"hasOwnProperty"}', 400],
    ['[]', 400],
    ['null', 400],
    ['"x"', 400],
    ['{', 400],
    ['', 400],
    ['{"name":"sessions.list","input":{"profile":{"toString":1}}}', 200],
    ['{"name":"sessions.list","input":[1]}', 200],
    ['{"name":"sessions.get","input":{"profile":"../../etc","sessionId":"x"}}', 200],
    ['DEEP', 400],
    ['{"__proto__":{"polluted":1},"name":"sessions.list","input":{"profile":"No!"}}', 200]
  ])('POST /api/call %s answers %s with a typed error and the host lives', async (label, status) => {
    // DEEP: 100k nested arrays (a parser recursion bomb).
    const body = label === 'DEEP' ? `${'['.repeat(100_000)}${']'.repeat(100_000)}` : label
    const r = await rawRequest(host.port, post(body))
    expect(r.status).toBe(status)
    expect((JSON.parse(r.body) as { ok: boolean }).ok).toBe(false)
    await expectAliveAfter(r)
  })

  it('without the token /api/call is 401 even for hostile names', async () => {
    const r = await rawRequest(
      host.port,
      `POST /api/call HTTP/1.1\r\n${H}\r\nContent-Length: 23\r\nConnection: close\r\n\r\n{"name":{"toString":1}}`
    )
    expect(r.status).toBe(401)
    await expectAliveAfter(r)
  })

  it('a declared body over 4 MB gets 413 while the client keeps uploading — no reset', async () => {
    const size = 6 * 1024 * 1024
    let writeError: string | null = null
    const r = await rawRequest(host.port, async (s) => {
      s.on('error', (e: NodeJS.ErrnoException) => (writeError = e.code ?? e.message))
      s.write(
        `POST /api/call HTTP/1.1\r\n${H}\r\nAuthorization: Bearer ${host.token}\r\nContent-Length: ${size}\r\n\r\n`
      )
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      for (let sent = 0; sent < size && !s.destroyed; sent += chunk.length) {
        if (!s.write(chunk)) await new Promise((r) => s.once('drain', r))
      }
    })
    expect(r.status).toBe(413)
    expect(r.error).toBeNull()
    expect(writeError).toBeNull()
    await expectAliveAfter(r)
  })

  it('Expect: 100-continue with a declared body over 4 MB gets 413 before any of it is sent', async () => {
    const r = await rawRequest(
      host.port,
      `POST /api/call HTTP/1.1\r\n${H}\r\nAuthorization: Bearer ${host.token}\r\nContent-Length: ${6 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`
    )
    expect(r.status).toBe(413)
    await expectAliveAfter(r)
    // Under the limit, the client is told to go on and the call runs.
    const body = '{"name":"sessions.list","input":{"profile":"No!"}}'
    const ok = await rawRequest(host.port, async (s) => {
      s.write(
        `POST /api/call HTTP/1.1\r\n${H}\r\nAuthorization: Bearer ${host.token}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`
      )
      await new Promise((r) => s.once('data', r))
      s.write(body)
    })
    expect(ok.status).toBe(200)
  })

  it('a chunked body that grows past 4 MB gets 413 mid-upload — no reset', async () => {
    const r = await rawRequest(host.port, async (s) => {
      s.write(
        `POST /api/call HTTP/1.1\r\n${H}\r\nAuthorization: Bearer ${host.token}\r\nTransfer-Encoding: chunked\r\n\r\n`
      )
      const chunk = Buffer.alloc(256 * 1024, 0x20)
      for (let i = 0; i < 24 && !s.destroyed; i++) {
        if (!s.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])))
          await new Promise((r) => s.once('drain', r))
      }
      if (!s.destroyed) s.write('0\r\n\r\n')
    })
    expect(r.status).toBe(413)
    expect(r.error).toBeNull()
    await expectAliveAfter(r)
  })

  it('the UI is served with the CSP header, and /api/health keeps its body', async () => {
    const r = await rawRequest(host.port, get('/'))
    expect(r.status).toBe(200)
    expect(r.head).toMatch(/content-security-policy: [^\r\n]*object-src 'none'/i)
    expect(r.head).toMatch(/content-security-policy: [^\r\n]*base-uri 'none'/i)
    expect(r.head).not.toMatch(/connect-src[^;\r\n]*(ws:|wss:|\*|https?:)/i)
    expect(await health(host.port)).toBe('{"ok":true}')
  })

  it('fuzzed request lines (seeded) never take the host down', async () => {
    const rand = prng(1010)
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!
    const pieces = [
      '/',
      '%',
      '%2',
      '%2e',
      '%c0',
      '%ae',
      '%00',
      '..',
      '?',
      '#',
      '[',
      ']',
      ':',
      '@',
      'http://',
      '[::1',
      '\\',
      '%ff',
      'a',
      '/api/',
      'call',
      'ws',
      'token=',
      '&',
      '=',
      '%25',
      '\u00ff',
      '\t',
      ' '
    ]
    for (let i = 0; i < 150; i++) {
      const target = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => pick(pieces)).join('')
      const method = pick(['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'G\u0000T', 'CONNECT', ''])
      const version = pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1\u0000', '', 'HTTPS/1.1'])
      const line = `${method} ${target} ${version}\r\n${H}\r\n${rand() < 0.3 ? `Content-Length: ${pick(['-5', 'x', '99999999999999999999', '0', '3'])}\r\n` : ''}Connection: close\r\n\r\n`
      const r = await rawRequest(host.port, Buffer.from(line, 'latin1'), 1500)
      expectNoLeak(r)
      expect(host.alive(), `case ${i}: ${JSON.stringify(line)}`).toBe(true)
      if (i % 10 === 9) expect(await health(host.port)).toBe('{"ok":true}')
    }
    expect(await health(host.port)).toBe('{"ok":true}')
  }, 120_000)
})

/**
 * Open /ws over a raw socket, send frames, collect what comes back until the server closes, goes quiet, or `done`
 * says everything awaited has arrived (then there is nothing left to wait for).
 */
function wsRaw(
  port: number,
  target: string,
  frames: Buffer[],
  idleMs = 1500,
  done: (texts: string[]) => boolean = () => false
): Promise<{ handshake: string; texts: string[]; closeCode: number | null }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let buf = Buffer.alloc(0)
    let handshake = ''
    const texts: string[] = []
    let closeCode: number | null = null
    let idle: ReturnType<typeof setTimeout>
    const finish = () => {
      clearTimeout(idle)
      socket.destroy()
      resolve({ handshake, texts, closeCode })
    }
    const arm = () => {
      clearTimeout(idle)
      idle = setTimeout(finish, idleMs)
    }
    const drainFrames = () => {
      while (buf.length >= 2) {
        const op = buf[0]! & 0x0f
        let len = buf[1]! & 0x7f
        let off = 2
        if (len === 126) {
          if (buf.length < 4) return
          len = buf.readUInt16BE(2)
          off = 4
        } else if (len === 127) {
          if (buf.length < 10) return
          len = Number(buf.readBigUInt64BE(2))
          off = 10
        }
        if (buf.length < off + len) return
        const payload = buf.subarray(off, off + len)
        if (op === 1) texts.push(payload.toString('utf8'))
        if (op === 8) closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
        buf = buf.subarray(off + len)
      }
    }
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d])
      if (!handshake) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        handshake = buf.subarray(0, end).toString('latin1')
        buf = buf.subarray(end + 4)
        if (handshake.startsWith('HTTP/1.1 101')) for (const f of frames) socket.write(f)
      }
      drainFrames()
      if (done(texts)) finish()
      else arm()
    })
    socket.on('error', finish)
    socket.on('close', finish)
    socket.on('connect', () => {
      socket.write(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`
      )
      arm()
    })
  })
}

/** A masked text frame's header (and key) declaring a payload one byte past the contract's frame limit. */
function overSizeHeader(): Buffer {
  const len = MAX_CALL_FRAME_BYTES + 1
  return Buffer.from([
    0x81,
    0x80 | 127,
    0,
    0,
    0,
    0,
    len >>> 24,
    (len >>> 16) & 255,
    (len >>> 8) & 255,
    len & 255,
    1,
    2,
    3,
    4
  ])
}

describe('hostile WebSocket against a real serve', () => {
  const ws = () => `/ws?token=${host.token}`
  const text = (s: string) => wsFrame(Buffer.from(s))

  it.each(['/ws?token=%', '/ws%', 'http://[::1/ws', '/%2e%2e/ws', '/ws?token=wrong', '/ws'])(
    'upgrade to %s is refused and the host lives',
    async (target) => {
      const r = await wsRaw(host.port, target, [])
      expect(r.handshake).not.toMatch(/^HTTP\/1\.1 101/)
      expect(await health(host.port)).toBe('{"ok":true}')
    }
  )

  it.each([
    ['{"t":"call","id":1,"name":{"toString":1}}', 'invalid_input'],
    ['{"t":"call","id":2,"name":["sessions.list"]}', 'invalid_input'],
    ['{"t":"call","id":3,"name":"constructor"}', 'unknown_request'],
    ['{"t":"call","id":4,"name":"sessions.list","input":{"profile":{"toString":1}}}', 'invalid_input'],
    ['not json', 'invalid_input'],
    ['null', 'invalid_input'],
    ['[]', 'invalid_input'],
    ['42', 'invalid_input']
  ])('frame %s answers %s and the connection keeps working', async (frame, code) => {
    const r = await wsRaw(host.port, ws(), [text(frame), text('{"t":"call","id":99,"name":"app.info"}')], 1500, (ts) =>
      ts.some((t) => t.includes('"id":99'))
    )
    expect(r.handshake).toMatch(/^HTTP\/1\.1 101/)
    const results = r.texts.map((t) => JSON.parse(t)).filter((m) => m.t === 'result')
    expect(results[0]).toMatchObject({ ok: false, error: { code } })
    expect(results.find((m) => m.id === 99)).toMatchObject({ ok: true })
    for (const t of r.texts.filter((x) => x.includes('"ok":false')))
      expect(t).not.toMatch(/\n\s+at\s|node:internal|\/tmp\//)
    expect(await health(host.port)).toBe('{"ok":true}')
  })

  it.each([
    ['invalid UTF-8 text', wsFrame(Buffer.from([0xc0, 0xae, 0xff]))],
    ['reserved opcode', wsFrame(Buffer.from('x'), { opcode: 3 })],
    ['RSV bits without an extension', wsFrame(Buffer.from('{}'), { rsv: 7 })],
    ['unmasked client frame', wsFrame(Buffer.from('{}'), { mask: false })],
    ['fragmented control frame', wsFrame(Buffer.from('x'), { opcode: 9, fin: false })],
    ['binary frame', wsFrame(Buffer.from([1, 2, 3]), { opcode: 2 })],
    ['over-size frame (its header declares one byte past the frame limit)', overSizeHeader()],
    ['continuation without a start', wsFrame(Buffer.from('x'), { opcode: 0 })],
    ['truncated header', Buffer.from([0x81])]
  ])('%s closes at most that connection', async (_label, frame) => {
    const r = await wsRaw(host.port, ws(), [frame])
    expect(r.handshake).toMatch(/^HTTP\/1\.1 101/)
    expect(await health(host.port)).toBe('{"ok":true}')
    expect(host.alive()).toBe(true)
  })

  it('fuzzed frames (seeded) never take the host down', async () => {
    const rand = prng(2020)
    for (let i = 0; i < 40; i++) {
      const len = Math.floor(rand() * 64)
      const bytes = Buffer.from(Array.from({ length: len }, () => Math.floor(rand() * 256)))
      const frames = [
        wsFrame(bytes, {
          opcode: Math.floor(rand() * 16),
          fin: rand() < 0.8,
          rsv: rand() < 0.1 ? 4 : 0,
          mask: rand() < 0.9
        }),
        text(
          JSON.stringify({
            t: 'call',
            id: i,
            name: rand() < 0.5 ? { toString: i } : 'sessions.list',
            input: rand() < 0.5 ? bytes.toString('latin1') : { profile: 'all' }
          })
        )
      ]
      await wsRaw(host.port, ws(), frames, 400)
      expect(host.alive(), `frame case ${i}`).toBe(true)
    }
    expect(await health(host.port)).toBe('{"ok":true}')
  }, 120_000)

  it('nothing went to the process as an uncaught error', () => {
    const log = (() => {
      try {
        return readFileSync(join(host.logDir, 'errors.log'), 'utf8')
      } catch {
        return ''
      }
    })()
    expect(log).not.toMatch(/uncaught exception|unhandled rejection/)
    expect(host.stderr()).not.toMatch(/Unhandled|TypeError|URIError/)
  })
})
