import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { createClient } from '@shared/contract'
import { createWsTransport, type ConnectionState } from './ws-transport'

type WsTransport = ReturnType<typeof createWsTransport>
type SocketLike = ReturnType<NonNullable<Parameters<typeof createWsTransport>[0]['createSocket']>>

// The renderer talks to the headless host over a real WebSocket; these tests use a real `ws` server
// (its own HTTP listener: the renderer folder may not import node:*).
interface Host {
  wss: WebSocketServer
  port: number
  frames: unknown[]
}

async function startHost(
  port = 0,
  handle?: (frame: { id: number; name: string; input: unknown }, ws: WebSocket) => void,
  maxPayload?: number
): Promise<Host> {
  const wss = new WebSocketServer({ port, host: '127.0.0.1', path: '/ws', ...(maxPayload ? { maxPayload } : {}) })
  const frames: unknown[] = []
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data))
      frames.push(frame)
      if (handle) handle(frame, ws)
      else
        ws.send(
          JSON.stringify({ t: 'result', id: frame.id, ok: true, output: { echo: frame.name, input: frame.input } })
        )
    })
  })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  return { wss, port: (wss.address() as { port: number }).port, frames }
}

async function stopHost(h: Host): Promise<void> {
  for (const c of h.wss.clients) c.terminate()
  await new Promise<void>((r) => h.wss.close(() => r()))
}

const nodeSocket = (url: string) => new WebSocket(url) as unknown as SocketLike
const hosts: Host[] = []
const transports: WsTransport[] = []
afterEach(async () => {
  for (const t of transports.splice(0)) t.close()
  for (const h of hosts.splice(0)) await stopHost(h).catch(() => {})
})

function waitFor(pred: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (pred() ? resolve() : setTimeout(tick, 5))
    tick()
  })
}

describe('WebSocket transport', () => {
  it('refuses a call bigger than the host takes instead of sending it, so the socket and its other calls live', async () => {
    // answers after a moment, so the small call is still in flight when the big one (under 1024 characters, over
    // 1024 bytes in UTF-8) is made
    const host = await startHost(
      0,
      (f, ws) => setTimeout(() => ws.send(JSON.stringify({ t: 'result', id: f.id, ok: true, output: 'ok' })), 50),
      1024
    )
    hosts.push(host)
    const states: ConnectionState[] = []
    const t = createWsTransport({
      url: `ws://127.0.0.1:${host.port}/ws`,
      createSocket: nodeSocket,
      maxFrameBytes: 1024,
      onState: (s) => states.push(s)
    })
    transports.push(t)
    const small = t.invoke('sessions.list', {})
    await waitFor(() => host.frames.length === 1)
    const big = await t.invoke('sessions.import', { profile: 'default', content: 'é'.repeat(600) })
    expect(big).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: 'Request too large to send (over 1024 bytes as JSON)' }
    })
    expect(await small).toEqual({ ok: true, output: 'ok' })
    expect(states).toEqual(['connected'])
    expect(host.frames).toHaveLength(1)
  })

  it('sends call frames and resolves results', async () => {
    const host = await startHost()
    hosts.push(host)
    const t = createWsTransport({ url: `ws://127.0.0.1:${host.port}/ws?token=x`, createSocket: nodeSocket })
    transports.push(t)
    const r = await t.invoke('app.info', {})
    expect(r).toEqual({ ok: true, output: { echo: 'app.info', input: {} } })
    expect(host.frames[0]).toMatchObject({ t: 'call', name: 'app.info', input: {} })
  })

  it('maps error results to CaduceusError through the typed client, keeping the field', async () => {
    const host = await startHost(0, (f, ws) =>
      ws.send(
        JSON.stringify({
          t: 'result',
          id: f.id,
          ok: false,
          error: { code: 'invalid_input', message: 'baseUrl: bad', field: 'baseUrl' }
        })
      )
    )
    hosts.push(host)
    const t = createWsTransport({ url: `ws://127.0.0.1:${host.port}/ws`, createSocket: nodeSocket })
    transports.push(t)
    const api = createClient(t)
    await expect(api.call('settings.update', { profile: 'default', baseUrl: 'x' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'baseUrl'
    })
  })

  it('delivers events and ignores malformed frames', async () => {
    const host = await startHost(0, (f, ws) => {
      ws.send('not json')
      ws.send(JSON.stringify({ t: 'event', event: 'gateway.changed', payload: { reason: 'evict' } }))
      ws.send(JSON.stringify({ t: 'result', id: f.id, ok: true, output: 1 }))
    })
    hosts.push(host)
    const t = createWsTransport({ url: `ws://127.0.0.1:${host.port}/ws`, createSocket: nodeSocket })
    transports.push(t)
    const got: unknown[] = []
    t.subscribe((e) => got.push(e))
    await t.invoke('gateway.state', {})
    expect(got).toEqual([{ event: 'gateway.changed', payload: { reason: 'evict' } }])
  })

  it('holds calls made while disconnected and sends them once the host is up', async () => {
    // reserve a free port, then start the host on it after the call is made
    const probe = await startHost()
    const port = probe.port
    await stopHost(probe)
    const states: ConnectionState[] = []
    const t = createWsTransport({
      url: `ws://127.0.0.1:${port}/ws`,
      createSocket: nodeSocket,
      backoffInitialMs: 10,
      backoffMaxMs: 40,
      onState: (s) => states.push(s)
    })
    transports.push(t)
    const pending = t.invoke('profiles.list', {})
    await waitFor(() => states.includes('reconnecting'))
    const host = await startHost(port)
    hosts.push(host)
    expect(await pending).toMatchObject({ ok: true })
    expect(t.state()).toBe('connected')
  })

  it('reconnects after the host drops and fails calls that were in flight', async () => {
    let drop = true
    const host = await startHost(0, (f, ws) => {
      if (drop) {
        drop = false
        ws.terminate()
        return
      }
      ws.send(JSON.stringify({ t: 'result', id: f.id, ok: true, output: 'ok' }))
    })
    hosts.push(host)
    const states: ConnectionState[] = []
    const t = createWsTransport({
      url: `ws://127.0.0.1:${host.port}/ws`,
      createSocket: nodeSocket,
      backoffInitialMs: 10,
      onState: (s) => states.push(s)
    })
    transports.push(t)
    const lost = await t.invoke('sessions.resume', { profile: 'default', sessionId: 's', text: 'hi' })
    // never re-sent: a resume must not run twice
    expect(lost).toMatchObject({ ok: false, error: { code: 'unavailable' } })
    expect(host.frames.filter((f) => (f as { name: string }).name === 'sessions.resume')).toHaveLength(1)
    const after = await t.invoke('app.info', {})
    expect(after).toEqual({ ok: true, output: 'ok' })
    expect(states).toEqual(expect.arrayContaining(['connected', 'reconnecting']))
  })

  it('times out a call when no connection comes', async () => {
    const probe = await startHost()
    const port = probe.port
    await stopHost(probe)
    const t = createWsTransport({
      url: `ws://127.0.0.1:${port}/ws`,
      createSocket: nodeSocket,
      connectTimeoutMs: 50,
      backoffInitialMs: 10
    })
    transports.push(t)
    expect(await t.invoke('app.info', {})).toMatchObject({ ok: false, error: { code: 'unavailable' } })
  })
})
