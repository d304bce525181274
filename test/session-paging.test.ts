// The browser never gets a session whole: a real host over its WebSocket, a state.db with a 30 MB tool output,
// a 3 MB tool call (upstream's {function: {...}} shape) and a long transcript; every frame is measured.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MESSAGE_PREVIEW_CHARS,
  MESSAGE_TEXT_CHUNK,
  type Message,
  type MessagePage,
  type MessageText
} from '@shared/contract'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { startHeadless } from '../src-main/host/transport/http-transport'
import { SessionStore } from '../src-main/store'

// The bound a frame must stay under: a page is at most MESSAGE_PAGE_CHARS (1,000,000) characters of text.
const FRAME_BOUND = 2 * 1024 * 1024
// A 🦩 now and then: offsets count code points, and astral characters must not be split between chunks.
const big = Array.from(
  { length: (30 * 1024 * 1024) / 24 },
  (_, i) => `line ${String(i).padStart(8, '0')} é ok ${i % 1000 ? '✓' : '🦩'}\n`
).join('')
// About 2 MB, a 🦩 every thousand lines, cut at a line end.
const mid = big.slice(0, big.indexOf('\n', 2_000_000) + 1)
// 1.2 MB of arguments: stored as upstream's json.dumps writes them (ü as \u00fc), 3.8 MB, under the read limit
const bigArgs = JSON.stringify({ path: 'notes.md', text: 'ü'.repeat(0.6 * 1024 * 1024) })
if (Buffer.byteLength(big) < 30 * 1024 * 1024) throw new Error('the fixture must be 30 MB or more')

let home: string
let host: Host
let server: Awaited<ReturnType<typeof startHeadless>>
let ws: WebSocket
let largestFrame = 0
const frames: number[] = []
const pending = new Map<number, (v: any) => void>()
let nextId = 1

function call<T>(name: string, input: unknown): Promise<T> {
  const id = nextId++
  return new Promise((ok, fail) => {
    pending.set(id, (r) => (r.ok ? ok(r.output as T) : fail(new Error(r.error.message))))
    ws.send(JSON.stringify({ t: 'call', id, name, input }))
  })
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'cad-paging-'))
  writeFileSync(join(home, 'config.yaml'), 'model:\n  default: demo-model\n  provider: demo\n')
  process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
  const store = new SessionStore(join(home, 'state.db'))
  await store.createSession('BIG', 'cli')
  await store.appendMessages('BIG', [
    { role: 'user', content: 'dump the log' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'write_file', arguments: bigArgs }] },
    { role: 'tool', content: big, toolCallId: 'c1', toolName: 'terminal' },
    { role: 'assistant', content: 'done' }
  ])
  await store.createSession('MID', 'cli')
  await store.appendMessage('MID', { role: 'tool', content: mid, toolCallId: 'c0', toolName: 'terminal' })
  await store.createSession('LONG', 'cli')
  await store.appendMessages(
    'LONG',
    Array.from({ length: 120 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `${i}:`.padEnd(30_000, 'x')
    }))
  )
  store.close()
  host = await createHost({ home, headless: true, live: false, log: createLogger(), validateOutput: true })
  server = await startHeadless({ dispatcher: host.dispatcher, bus: host.bus, log: host.log, rendererDir: home })
  ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`)
  ws.on('message', (data: Buffer) => {
    frames.push(data.length)
    largestFrame = Math.max(largestFrame, data.length)
    const m = JSON.parse(data.toString())
    if (m.t === 'result') pending.get(m.id)?.(m)
  })
  await new Promise((ok) => ws.once('open', ok))
}, 60_000)

afterAll(async () => {
  ws?.close()
  await server?.close()
  await host?.close()
  rmSync(home, { recursive: true, force: true })
})

/** What the transcript's "show all" does: chunks from offset 0 until the returned total. */
async function showAll(m: Message, field: 'content' | 'arguments'): Promise<string> {
  let text = ''
  for (let offset = 0, total = 1; offset < total; offset += MESSAGE_TEXT_CHUNK) {
    const chunk = await call<MessageText>('sessions.messageText', {
      profile: 'default',
      sessionId: m.sessionId,
      messageId: m.id,
      field,
      offset
    })
    total = chunk.total
    text += chunk.text
  }
  return text
}

describe('message paging for the browser', { timeout: 60_000 }, () => {
  it('a 30 MB tool output arrives as its size only; "show all" reads it in chunks, each frame under the bound', async () => {
    const page = await call<MessagePage>('sessions.messages', { profile: 'default', sessionId: 'BIG' })
    expect(page.items.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const tool = page.items[2]!
    // Over MESSAGE_FIELD_MAX_BYTES: not even read for the page (its size comes from the record header).
    expect(tool.content).toBe('')
    expect(tool.contentBytes).toBe(Buffer.byteLength(big))
    expect(page.items[3]!.contentBytes).toBeUndefined()
    const chunk = (offset: number) =>
      call<MessageText>('sessions.messageText', {
        profile: 'default',
        sessionId: 'BIG',
        messageId: tool.id,
        field: 'content',
        offset
      })
    const first = await chunk(0)
    const astral = big.match(/[\uD800-\uDBFF]/g)!.length
    expect(first.total).toBe(big.length - astral)
    expect(first.text).toBe(
      Array.from(big.slice(0, 2 * MESSAGE_TEXT_CHUNK))
        .slice(0, MESSAGE_TEXT_CHUNK)
        .join('')
    )
    const lastOffset = Math.floor(first.total / MESSAGE_TEXT_CHUNK) * MESSAGE_TEXT_CHUNK
    const last = await chunk(lastOffset)
    expect(Array.from(last.text)).toHaveLength(first.total - lastOffset)
    expect(big.endsWith(last.text)).toBe(true)
    expect(largestFrame).toBeLessThan(FRAME_BOUND)
  })

  it('"show all" joins the chunks back into the stored text exactly, astral characters included', async () => {
    const page = await call<MessagePage>('sessions.messages', { profile: 'default', sessionId: 'MID' })
    const tool = page.items[0]!
    expect(tool.content).toBe(
      Array.from(mid.slice(0, 2 * MESSAGE_PREVIEW_CHARS))
        .slice(0, MESSAGE_PREVIEW_CHARS)
        .join('')
    )
    expect(tool.contentBytes).toBe(Buffer.byteLength(mid))
    expect(await showAll(tool, 'content')).toBe(mid)
    expect(largestFrame).toBeLessThan(FRAME_BOUND)
  })

  it('a field under the read limit comes as a preview: a 3.8 MB tool call, its arguments cut, with their size; "show all" reads them back', async () => {
    const page = await call<MessagePage>('sessions.messages', { profile: 'default', sessionId: 'BIG' })
    const call0 = page.items[1]!.toolCalls![0]!
    expect(call0).toMatchObject({ id: 'c1', name: 'write_file', argumentsBytes: Buffer.byteLength(bigArgs) })
    expect(call0.arguments).toBe(bigArgs.slice(0, MESSAGE_PREVIEW_CHARS))
    expect(await showAll(page.items[1]!, 'arguments')).toBe(bigArgs)
    expect(largestFrame).toBeLessThan(FRAME_BOUND)
  })

  it('a long transcript is paged within the budget, newest first, the rest one page at a time', async () => {
    const seen: number[] = []
    let page = await call<MessagePage>('sessions.messages', { profile: 'default', sessionId: 'LONG', limit: 1000 })
    expect(page.items.length).toBeLessThan(120)
    expect(page.hasMoreBefore).toBe(true)
    seen.unshift(...page.items.map((m) => m.id))
    while (page.hasMoreBefore) {
      page = await call<MessagePage>('sessions.messages', {
        profile: 'default',
        sessionId: 'LONG',
        limit: 1000,
        beforeId: seen[0]
      })
      seen.unshift(...page.items.map((m) => m.id))
    }
    expect(seen).toHaveLength(120)
    expect(new Set(seen).size).toBe(120)
    expect(largestFrame).toBeLessThan(FRAME_BOUND)
    expect(Math.max(...frames)).toBe(largestFrame)
  })

  it('a message outside the session is not found', async () => {
    await expect(
      call('sessions.messageText', { profile: 'default', sessionId: 'LONG', messageId: 3, field: 'content' })
    ).rejects.toThrow(/No message 3/)
  })
})
