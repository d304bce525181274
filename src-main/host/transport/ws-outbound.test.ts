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
import { MAX_CALL_FRAME_BYTES, MAX_IMPORT_BYTES } from '@shared/contract/sessions-admin'

const blob = 'x'.repeat(256 * 1024)
const big = 'y'.repeat(8 * 1024 * 1024)
/**
 * The transport is under test: a call answers 256 KB, as a large session page would; `sessions.export` answers
 * 8 MB, `sessions.import` the size of what it got, and `bus` events follow a reply when the input asks for them.
 */
let bus = new EventBus()
const dispatcher = {
  invoke: async (name: string, input: { content?: string; events?: number }) => {
    for (let i = 0; i < (input?.events ?? 0); i++)
      setImmediate(() => bus.emit('sessions.changed', { profile: 'default', sessionIds: [`s${i}`] }))
    if (name === 'sessions.import') return { ok: true, output: { bytes: input.content?.length ?? 0 } }
    if (name === 'sessions.export') return { ok: true, output: { content: big } }
    return { ok: true, output: { blob } }
  }
} as unknown as Dispatcher
let stop: (() => Promise<void>) | null = null
afterEach(async () => {
  await stop?.()
  stop = null
})

async function serve(outbound?: { bytes?: number; calls?: number; stallMs?: number }) {
  bus = new EventBus()
  const warnings: string[] = []
  const log: Logger = { debug() {}, info() {}, error() {}, warn: (_n, m) => void warnings.push(m) }
  const dir = mkdtempSync(join(tmpdir(), 'cad-ws-'))
  const server = await startHeadless({ dispatcher, bus, log, rendererDir: dir, outbound })
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

  it("takes an import up to the contract's limit: a 5 MB one is answered, and the calls beside it too", async () => {
    const { url, warnings } = await serve()
    const ws = await open(url)
    const replies = new Map<number, { ok: boolean; output?: { bytes?: number } }>()
    ws.on('message', (d) => {
      const f = JSON.parse(String(d)) as { t: string; id: number; ok: boolean; output?: { bytes?: number } }
      if (f.t === 'result') replies.set(f.id, f)
    })
    let code: number | null = null
    ws.on('close', (c) => (code = c))
    const content = '{"id":"x","title":"a \\"quoted\\" line"}\n'.repeat(Math.ceil((5 * 1024 * 1024) / 36))
    ws.send(JSON.stringify({ t: 'call', id: 1, name: 'sessions.list', input: {} }))
    ws.send(JSON.stringify({ t: 'call', id: 2, name: 'sessions.import', input: { profile: 'default', content } }))
    ws.send(JSON.stringify({ t: 'call', id: 3, name: 'sessions.list', input: {} }))
    for (let i = 0; i < 200 && replies.size < 3; i++) await sleep(20)
    expect(replies.get(2)).toEqual({ t: 'result', id: 2, ok: true, output: { bytes: content.length } })
    expect([...replies.keys()].sort()).toEqual([1, 2, 3])
    expect(code).toBe(null)
    expect(warnings).toEqual([])
    // the frame limit holds the largest import the contract takes, escaped as JSON (quotes, backslashes, line ends)
    const worst = JSON.stringify({
      t: 'call',
      id: 1,
      name: 'sessions.import',
      input: { profile: 'default', content: '' }
    })
    expect(2 * MAX_IMPORT_BYTES + Buffer.byteLength(worst)).toBeLessThanOrEqual(MAX_CALL_FRAME_BYTES)
  })

  it('a reading client is not dropped after a reply far over the budget; events wait for its queue to drain', async () => {
    const { url, warnings } = await serve({ bytes: 1024 * 1024 })
    const ws = await open(url)
    const frames: Array<{ t: string; id?: number; payload?: { sessionIds: string[] } }> = []
    ws.on('message', (d) => frames.push(JSON.parse(String(d))))
    let code: number | null = null
    ws.on('close', (c) => (code = c))
    // 8 MB back, then 20 events while it is still in the socket, then a small call
    ws.send(JSON.stringify({ t: 'call', id: 1, name: 'sessions.export', input: { events: 20 } }))
    for (let i = 0; i < 200 && !frames.length; i++) await sleep(5)
    ws.send(JSON.stringify({ t: 'call', id: 2, name: 'sessions.list', input: {} }))
    const ids = () => new Set(frames.flatMap((f) => f.payload?.sessionIds ?? []))
    for (let i = 0; i < 200 && (ids().size < 20 || frames.filter((f) => f.t === 'result').length < 2); i++)
      await sleep(20)
    expect(code).toBe(null)
    expect(warnings).toEqual([])
    expect(frames.filter((f) => f.t === 'result').map((f) => f.id)).toEqual([1, 2])
    // every change arrives (merged into fewer events when they had to wait)
    expect(ids().size).toBe(20)
  })

  it('a client whose queue stays over budget and stops draining is dropped after the stall time', async () => {
    const { url, warnings } = await serve({ bytes: 1024 * 1024, stallMs: 300 })
    const ws = await open(url)
    const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)))
    socket.pause() // reads nothing from here on: most of the 8 MB reply stays queued
    ws.send(JSON.stringify({ t: 'call', id: 1, name: 'sessions.export', input: {} }))
    for (let i = 0; i < 100 && !warnings.length; i++) await sleep(20)
    expect(warnings).toEqual(['client dropped: it stopped reading (outbound queue not draining)'])
    socket.resume()
    expect(await closed).toBe(1008)
  })
})
