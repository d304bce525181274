// The in-app API server's edges, through the real host (Gateway page requests) and raw sockets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelsStatus } from '@shared/contract'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'

let root: string
let host: Host
let holder: Server

const call = async <T>(name: string, input: unknown): Promise<T> => {
  const r = await host.dispatcher.invoke(name, input)
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
  return r.output as T
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cad-apib-'))
  writeFileSync(join(root, 'config.yaml'), 'model:\n  default: demo-model\n  provider: demo\n')
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, live: false, log: createLogger(), validateOutput: true })
  holder = createServer()
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r))
})
afterAll(async () => {
  await host?.close()
  await new Promise<void>((r) => holder.close(() => r()))
  rmSync(root, { recursive: true, force: true })
})

describe('the in-app API server', () => {
  it('on a busy port: the Gateway page shows the port and the host keeps going', async () => {
    const port = (holder.address() as AddressInfo).port
    const s = await call<ChannelsStatus>('channels.apiServer', { enabled: true, profile: 'default', port })
    expect(s.apiServer.running).toBe(false)
    expect(s.apiServer.error).toBe(`port ${port} is already in use; choose another with --port N`)
    const again = await call<ChannelsStatus>('channels.apiServer', { enabled: true, profile: 'default', port: 0 })
    expect(again.apiServer).toMatchObject({ running: true, error: null })
  })

  it('Expect: 100-continue with an over-size body is answered 413 at once, never 100 Continue, as an OpenAI error', async () => {
    const url = new URL((await call<ChannelsStatus>('channels.status', {})).apiServer.url!)
    const sock = connect(Number(url.port), '127.0.0.1')
    // the whole answer: the server closes the connection after it (curl sends this header for any body over 1 MB)
    const reply = await new Promise<string>((done) => {
      let got = ''
      sock.on('data', (d) => (got += d.toString()))
      sock.on('end', () => done(got))
      sock.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${50 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`
      )
    })
    sock.destroy()
    expect(reply.startsWith('HTTP/1.1 413')).toBe(true)
    expect(reply).not.toContain('100 Continue')
    // the shape the body reader's own 413 has, which the openai SDKs read the reason from
    const body = reply.slice(reply.indexOf('\r\n\r\n') + 4)
    // (sent chunked: the JSON is the one chunk's data)
    expect(JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1))).toEqual({
      error: { message: 'Request body too large.', type: 'invalid_request_error', param: null, code: 'body_too_large' }
    })
    await call('channels.apiServer', { enabled: false, profile: 'default' })
  })
})
