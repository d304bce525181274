// The contract boundary: every request has exactly one handler, bad input gets a typed error naming the
// field, and the headless host keeps serving after any of it.
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestNames } from '@shared/contract'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { startHeadless } from '../src-main/host/transport/http-transport'
import type { Host } from '../src-main/host'

let home: string
let host: Host
let server: Awaited<ReturnType<typeof startHeadless>>

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'cad-contract-'))
  process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
  host = await createHost({ home, headless: true, validateOutput: true, log: createLogger() })
  server = await startHeadless({
    dispatcher: host.dispatcher,
    bus: host.bus,
    log: host.log,
    rendererDir: join(home, 'no-ui')
  })
})

afterAll(async () => {
  await server?.close()
  await host?.close()
  rmSync(home, { recursive: true, force: true })
})

function wsCall(url: string, frames: unknown[]): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    const out: Array<Record<string, unknown>> = []
    ws.on('open', () => frames.forEach((f) => ws.send(typeof f === 'string' ? f : JSON.stringify(f))))
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data))
      if (msg.t !== 'result') return
      out.push(msg)
      if (out.length === frames.length) {
        ws.close()
        resolve(out)
      }
    })
    ws.on('error', reject)
  })
}

describe('contract', () => {
  it('registers exactly one handler per request name', () => {
    expect([...host.handlerNames].sort()).toEqual([...requestNames].sort())
  })

  it('answers every request name (none is unknown to the dispatcher)', async () => {
    for (const name of requestNames) {
      const r = await host.dispatcher.invoke(name, {})
      if (!r.ok) expect(r.error.code, name).not.toBe('unknown_request')
    }
  })

  it('rejects malformed input with a typed error naming the field', async () => {
    const bad = await host.dispatcher.invoke('sessions.list', { limit: 'ten' })
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'limit' } })
    const badProfile = await host.dispatcher.invoke('sessions.get', { profile: '../etc', sessionId: 'x' })
    expect(badProfile).toMatchObject({ ok: false, error: { code: 'invalid_input', field: 'profile' } })
    const missing = await host.dispatcher.invoke('sessions.get', { profile: 'default', sessionId: 'nope' })
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } })
    const unknown = await host.dispatcher.invoke('sessions.drop', {})
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_request' } })
  })

  it('a list input validated once answers as its own parse would, repeated or not, whatever came before', async () => {
    const list = (input: unknown) => host.dispatcher.invoke('sessions.list', input)
    const invalid = (field: string) => ({ ok: false, error: { code: 'invalid_input', field } })
    // refused every time, never kept
    for (let i = 0; i < 2; i++) expect(await list({ profile: 'default', limit: 0 })).toMatchObject(invalid('limit'))
    for (let i = 0; i < 2; i++) expect(await list({ profile: 'default', cursor: null })).toMatchObject({ ok: true })
    // values whose JSON text is that of an input accepted above are still parsed on their own
    expect(await list({ profile: 'default', cursor: Number.NaN })).toMatchObject(invalid('cursor'))
    expect(await list({ profile: 'default', cursor: null, limit: -0 })).toMatchObject(invalid('limit'))
    expect(await list({ profile: 'default', cursor: null, sort: undefined })).toMatchObject({ ok: true })
    expect(await list({ profile: 'default', cursor: null, archived: undefined })).toMatchObject({ ok: true })
    expect(await list({ profile: 'default', cursor: null, sources: [undefined] })).toMatchObject(invalid('sources.0'))
    expect(await list({ profile: 'default', cursor: new Date(0) })).toMatchObject(invalid('cursor'))
    // a refused cursor is refused each time: its plan is never kept
    for (let i = 0; i < 2; i++)
      expect(await list({ profile: 'default', cursor: 'bm90IGEgY3Vyc29y' })).toMatchObject(invalid('cursor'))
  })

  it('a profile that does not exist is not_found for every profile-scoped read, not an empty answer', async () => {
    for (const [name, input] of [
      ['sessions.list', { profile: 'ghost' }],
      ['sessions.search', { profile: 'ghost', query: 'hello' }],
      ['costs.summary', { profile: 'ghost' }],
      ['subagents.list', { profile: 'ghost' }],
      ['subagents.list', { profile: 'ghost', parentSessionId: 'p1' }],
      ['memory.events', { profile: 'ghost' }],
      ['memory.health', { profile: 'ghost' }]
    ] as const) {
      const r = await host.dispatcher.invoke(name, input)
      expect(r, `${name} ${JSON.stringify(input)}`).toMatchObject({
        ok: false,
        error: { code: 'not_found', field: 'profile' }
      })
    }
    // the all-profiles scope stays an answer
    expect(await host.dispatcher.invoke('costs.summary', { profile: 'all' })).toMatchObject({ ok: true })
    expect(await host.dispatcher.invoke('subagents.list', { profile: 'all' })).toMatchObject({ ok: true })
    expect(await host.dispatcher.invoke('memory.events', { profile: 'all' })).toMatchObject({ ok: true })
    expect(await host.dispatcher.invoke('memory.health', {})).toMatchObject({ ok: true })
  })

  it('saving prices tells every window (prices.changed), so amounts priced with the old ones are read again', async () => {
    const seen: string[] = []
    const off = host.bus.subscribe((e) => void seen.push(e.event))
    const r = await host.dispatcher.invoke('prices.set', {
      overrides: [{ model: 'local-model', inputPerMTok: 1, outputPerMTok: 2 }]
    })
    off()
    expect(r).toMatchObject({ ok: true })
    expect(seen).toContain('prices.changed')
  })

  it('the headless host requires its token and keeps serving after garbage', async () => {
    const noToken = await fetch(`http://127.0.0.1:${server.port}/api/call`, { method: 'POST', body: '{}' })
    expect(noToken.status).toBe(401)
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 must be refused (fetch can't set Host).
    const wrongHost = await new Promise<number>((resolve, reject) =>
      request({ host: '127.0.0.1', port: server.port, path: '/api/health', headers: { host: 'evil.example' } }, (res) =>
        resolve(res.statusCode ?? 0)
      )
        .on('error', reject)
        .end()
    )
    expect(wrongHost).toBe(403)
    const url = `ws://127.0.0.1:${server.port}/ws?token=${server.token}`
    const results = await wsCall(url, [
      '{not json',
      { t: 'call', id: 1, name: 'sessions.list', input: { limit: -3 } },
      { t: 'call', id: 2, name: 'app.info', input: {} }
    ])
    expect(results[0]).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    expect(results.find((r) => r.id === 1)).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', field: 'limit' }
    })
    expect(results.find((r) => r.id === 2)).toMatchObject({ ok: true })
    await expect(
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=wrong`)
        ws.on('open', () => reject(new Error('opened without the token')))
        ws.on('error', resolve)
      })
    ).resolves.toBeTruthy()
  })

  it('answers a browser behind an SSH tunnel or an allowed reverse proxy, and still refuses foreign names', async () => {
    const status = (port: number, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) =>
        request({ host: '127.0.0.1', port, path: '/api/health', headers }, (res) => resolve(res.statusCode ?? 0))
          .on('error', reject)
          .end()
      )
    // 'unexpected-response' (401) or 'open': whether the handshake was let through
    const upgrade = (port: number, token: string, headers: Record<string, string>) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { headers })
        ws.on('open', () => {
          ws.close()
          resolve('open')
        })
        ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)))
        ws.on('error', () => resolve('error'))
      })
    // `ssh -L 9000:127.0.0.1:<port>`: the browser names its own local port
    const tunnel = { host: 'localhost:9000', origin: 'http://localhost:9000' }
    expect(await status(server.port, tunnel)).toBe(200)
    expect(await upgrade(server.port, server.token, tunnel)).toBe('open')
    expect(await upgrade(server.port, 'wrong', tunnel)).toBe('401')
    const proxy = { host: 'proxy.example', origin: 'https://proxy.example' }
    expect(await status(server.port, proxy)).toBe(403)
    expect(await upgrade(server.port, server.token, proxy)).toBe('401')
    expect(await upgrade(server.port, server.token, { host: 'localhost:9000', origin: 'https://evil.example' })).toBe(
      '401'
    )

    const proxied = await startHeadless({
      dispatcher: host.dispatcher,
      bus: host.bus,
      log: host.log,
      rendererDir: join(home, 'no-ui'),
      allowHosts: ['proxy.example']
    })
    try {
      expect(await status(proxied.port, proxy)).toBe(200)
      expect(await upgrade(proxied.port, proxied.token, proxy)).toBe('open')
      // nginx's default Host is its upstream's (loopback); the page's origin is still the proxy's name
      expect(
        await upgrade(proxied.port, proxied.token, { host: `127.0.0.1:${proxied.port}`, origin: proxy.origin })
      ).toBe('open')
      expect(await status(proxied.port, { host: 'evil.example:8765' })).toBe(403)
      expect(
        await upgrade(proxied.port, proxied.token, { host: 'proxy.example', origin: 'https://evil.example' })
      ).toBe('401')
    } finally {
      await proxied.close()
    }
  })
})
