// Raw-socket HTTP for hostile-input tests: what a browser or `curl` would never send.
import { connect, type Socket } from 'node:net'

export interface RawResponse {
  status: number | null
  head: string
  body: string
  /** The socket errored (e.g. ECONNRESET) before a full response arrived. */
  error: string | null
}

/** Parse one HTTP/1.1 response out of `buf`; null until its head and declared body are complete. */
function complete(buf: Buffer): { head: string; body: string } | null {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return null
  const head = buf.subarray(0, end).toString('latin1')
  // An interim `100 Continue` is not the answer: read past it.
  if (/^HTTP\/1\.1 100 /.test(head)) return complete(buf.subarray(end + 4))
  const len = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  const body = buf.subarray(end + 4)
  if (!len && /\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const parts: Buffer[] = []
    let off = 0
    for (;;) {
      const eol = body.indexOf('\r\n', off)
      if (eol < 0) return null
      const size = parseInt(body.subarray(off, eol).toString('latin1'), 16)
      if (Number.isNaN(size)) return null
      if (size === 0) return { head, body: Buffer.concat(parts).toString('utf8') }
      if (body.length < eol + 2 + size + 2) return null
      parts.push(body.subarray(eol + 2, eol + 2 + size))
      off = eol + 2 + size + 2
    }
  }
  if (!len) return /^HTTP\/1\.1 (101|1\d\d)/.test(head) ? { head, body: '' } : null
  return body.length >= Number(len[1]) ? { head, body: body.subarray(0, Number(len[1])).toString('utf8') } : null
}

/**
 * Send raw bytes (all at once, or as an async writer for slow uploads) and read one response: resolves when a full
 * response arrived, the server closed, or `idleMs` passed without bytes.
 */
export function rawRequest(
  port: number,
  payload: string | Buffer | ((s: Socket) => Promise<void>),
  idleMs = 3000
): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let buf = Buffer.alloc(0)
    let error: string | null = null
    let done = false
    let idle: ReturnType<typeof setTimeout>
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(idle)
      const parsed = complete(buf)
      const head =
        parsed?.head ??
        buf
          .toString('latin1')
          .split('\r\n\r\n')
          .find((h) => !/^HTTP\/1\.1 100 /.test(h)) ??
        ''
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)
      socket.destroy()
      resolve({
        status: status ? Number(status[1]) : null,
        head,
        body: parsed?.body ?? buf.toString('utf8').split('\r\n\r\n').slice(1).join('\r\n\r\n'),
        error: parsed ? null : error
      })
    }
    const arm = () => {
      clearTimeout(idle)
      idle = setTimeout(finish, idleMs)
    }
    arm()
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d])
      arm()
      if (complete(buf)) finish()
    })
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message
      finish()
    })
    socket.on('close', finish)
    socket.on('connect', () => {
      if (typeof payload === 'function') payload(socket).catch(() => undefined)
      else socket.write(payload)
    })
  })
}

/** `GET /api/health` over a fresh socket: the body, or null if the host did not answer. */
export async function health(port: number): Promise<string | null> {
  const r = await rawRequest(
    port,
    `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    5000
  )
  return r.status === 200 ? r.body : null
}

/** A WebSocket client frame (masked, as clients must), with any opcode/flags, for raw frame fuzzing. */
export function wsFrame(
  payload: Buffer,
  opts: { opcode?: number; fin?: boolean; rsv?: number; mask?: boolean } = {}
): Buffer {
  const { opcode = 1, fin = true, rsv = 0, mask = true } = opts
  const len = payload.length
  const header: number[] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
  if (len < 126) header.push((mask ? 0x80 : 0) | len)
  else if (len < 65536) header.push((mask ? 0x80 : 0) | 126, len >> 8, len & 255)
  else {
    header.push((mask ? 0x80 : 0) | 127, 0, 0, 0, 0)
    header.push((len >>> 24) & 255, (len >>> 16) & 255, (len >>> 8) & 255, len & 255)
  }
  if (!mask) return Buffer.concat([Buffer.from(header), payload])
  const key = Buffer.from([0x12, 0x34, 0x56, 0x78])
  const masked = Buffer.from(payload.map((b, i) => b ^ key[i % 4]!))
  return Buffer.concat([Buffer.from(header), key, masked])
}

/** A deterministic PRNG (mulberry32) so a fuzz failure can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
