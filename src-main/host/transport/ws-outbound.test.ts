// A WebSocket client that never reads: the headless transport drops it after its outbound budget.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import { EventBus } from '../dispatch/event-bus'
import { startHeadless } from './http-transport'
import type { Dispatcher } from '../dispatch/dispatch'
import type { Logger } from '@shared/contract/log'

const blob = 'x'.repeat(256 * 1024)
// The transport is under test: every call answers 256 KB, as a large session page would.
const dispatcher = { invoke: async () => ({ ok: true, output: { blob } }) } as unknown as Dispatcher
let stop: (() => Promise<void>) | null = null
afterEach(async () => {
  await stop?.()
  stop = null
})

async function serve(outbound?: { bytes?: number; calls?: number }) {
  const warnings: string[] = []
  const log: Logger = { debug() {}, info() {}, error() {}, warn: (_n, m) => void warnings.push(m) }
  const dir = mkdtempSync(join(tmpdir(), 'cad-ws-'))
  const server = await startHeadless({ dispatcher, bus: new EventBus(), log, rendererDir: dir, outbound })
  stop = async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return { url: `ws://127.0.0.1:${server.port}/ws?token=${server.token}`, warnings }
}

const open = (url: string) =>
  new Promise<WebSocket>((ok, fail) => {
    const ws = new WebSocket(url)
    ws.once('open', () => ok(ws))
    ws.once('error', fail)
  })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('WebSocket outbound budget', () => {
  it('a client that stops reading is sent a close and dropped once its queue passes the byte budget', async () => {
    const { url, warnings } = await serve({ bytes: 1024 * 1024 })
    const ws = await open(url)
    const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket
    socket.pause() // reads nothing from here on
    for (let i = 0; i < 200; i++) ws.send(JSON.stringify({ t: 'call', id: i, name: 'sessions.list', input: {} }))
    for (let i = 0; i < 100 && !warnings.length; i++) await sleep(50)
    expect(warnings).toEqual(['client dropped: it stopped reading (outbound queue over budget)'])
    let results = 0
    ws.on('message', () => results++)
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)))
    socket.resume()
    await closed
    // Far fewer than the 200 answers (50 MB) it asked for: the rest was never queued.
    expect(results).toBeLessThan(100)
  })

  it('a client with too many calls in flight is dropped as well; a reading client is not', async () => {
    const { url, warnings } = await serve({ calls: 4 })
    const reader = await open(url)
    let answered = 0
    reader.on('message', () => answered++)
    for (let i = 0; i < 3; i++) reader.send(JSON.stringify({ t: 'call', id: i, name: 'sessions.list', input: {} }))
    for (let i = 0; i < 100 && answered < 3; i++) await sleep(20)
    expect(answered).toBe(3)
    expect(warnings).toEqual([])
    const flooder = await open(url)
    const closed = new Promise<number>((r) => flooder.once('close', (code) => r(code)))
    for (let i = 0; i < 50; i++) flooder.send(JSON.stringify({ t: 'call', id: i, name: 'sessions.list', input: {} }))
    expect(await closed).toBe(1008)
    expect(warnings).toContain('client dropped: too many calls in flight')
  })
})
