import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { bindHttp, takeOver } from './listen'

let server: Server | null = null
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())))

/** One request to the bound port: its status and Retry-After, or the upgrade's (a WebSocket handshake). */
function ask(port: number, upgrade: boolean): Promise<{ status: number | undefined; retry: string | undefined }> {
  return new Promise((resolve, reject) => {
    const headers = upgrade
      ? {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ=='
        }
      : {}
    const req = request({ host: '127.0.0.1', port, path: upgrade ? '/ws' : '/api/health', headers })
    req.on('response', (res) => {
      res.resume()
      resolve({ status: res.statusCode, retry: res.headers['retry-after'] })
    })
    req.on('upgrade', (res, socket) => {
      socket.destroy()
      resolve({ status: res.statusCode, retry: undefined })
    })
    req.on('error', reject)
    req.end()
  })
}

describe('a bound port before the host is ready', () => {
  it('answers 503 "starting" to requests and handshakes at once (a reconnecting browser retries), then the host answers', async () => {
    server = await bindHttp(0)
    const { port } = server.address() as AddressInfo
    expect(await ask(port, false)).toEqual({ status: 503, retry: '1' })
    expect(await ask(port, true)).toEqual({ status: 503, retry: '1' })
    takeOver(server)
    server.on('request', (_req, res) => res.end('ok'))
    expect(await ask(port, false)).toEqual({ status: 200, retry: undefined })
  })
})
