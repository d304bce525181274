// A turn through Caduceus's real API path (in-process host, the Gateway page's API server, an Anthropic-wire scripted
// provider) stores the same rows upstream's own agent flush stores for that turn (golden: scripts/golden/turn_rows.py):
// the image message as its text with "[screenshot]", tool_calls as json.dumps writes them, '' for a tool-call row
// without text, reasoning + reasoning_content + reasoning_details on assistant rows only. Lineage titles likewise.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelsStatus } from '@shared/contract'
import { startScriptedProvider, type ScriptedProvider } from '../src-main/agent/scripted'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store/session-store'
import { nextTitleInLineage } from '../src-main/store/titles'
import { rawDb } from '../src-main/store/test-fixtures/raw-db'
import { ENTRY_ROWS, entryGolden, sharedColumns } from './helpers/entry-rows'

const FIX = join(import.meta.dirname, 'fixtures/upstream/turn-rows')
const CASE = JSON.parse(readFileSync(join(FIX, 'case.json'), 'utf8'))
const GOLDEN = JSON.parse(readFileSync(join(FIX, 'golden.json'), 'utf8')) as {
  flush: Array<Record<string, string | null>>
  counts: { message_count: number; tool_call_count: number }
  titles: Array<{ existing: string[]; title: string; next: string }>
}
const KEY = 'hk_turn_rows_golden_key_0123456789'
let root: string
let host: Host
let provider: ScriptedProvider
let apiSession = ''
let apiUrl = ''

beforeAll(async () => {
  let calls = 0
  // each call's usage as entry_rows.py's provider reports it: 1200 prompt tokens, 200 of them cached, 40 out
  const usage = { promptTokens: 1200, cachedTokens: 200, completionTokens: 40 }
  provider = await startScriptedProvider({
    handler: () =>
      calls++ === 0
        ? { reasoning: CASE.call_reasoning, toolCalls: [{ ...CASE.tool_call }], usage }
        : { reasoning: CASE.reply_reasoning, text: CASE.reply, usage }
  })
  root = mkdtempSync(join(tmpdir(), 'cad-turn-rows-'))
  writeFileSync(
    join(root, 'config.yaml'),
    `model:\n  default: claude-x\n  provider: anthropic\n  base_url: ${provider.baseUrl}\n`
  )
  writeFileSync(join(root, '.env'), `API_SERVER_KEY=${KEY}\nAPI_SERVER_PORT=0\nANTHROPIC_API_KEY=sk-ant-test\n`, {
    mode: 0o600
  })
  process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
  host = await createHost({ home: root, headless: true, live: false, log: createLogger() })
})

afterAll(async () => {
  await host?.close()
  await provider?.close()
  rmSync(root, { recursive: true, force: true })
})

describe("a turn's rows match upstream's agent flush", { timeout: 30_000 }, () => {
  it('an API chat with an image, a tool call and reasoning with thinking blocks', async () => {
    const r = await host.dispatcher.invoke('channels.apiServer', { enabled: true, profile: 'default' })
    if (!r.ok) throw new Error(r.error.message)
    apiUrl = (r.output as ChannelsStatus).apiServer.url!
    const client = new OpenAI({ baseURL: apiUrl, apiKey: KEY, maxRetries: 0 })
    const res = await client.chat.completions
      .create({ model: 'hermes-agent', messages: [{ role: 'user', content: CASE.user_parts }] })
      .withResponse()
    expect(res.data.choices[0]!.message.content).toBe(CASE.reply)
    // the prompt whole (cached part included) over the turn's two calls, as upstream's API server counts it
    expect(res.data.usage).toEqual(ENTRY_ROWS.usage.chat)
    // The image itself went to the provider with the turn.
    const first = provider.requests[0]!.body.messages as Array<{ role: string; content: Array<{ type: string }> }>
    expect(first.at(-1)!.content.map((p) => p.type)).toEqual(['text', 'image', 'text'])

    const sid = res.response.headers.get('x-hermes-session-id')!
    apiSession = sid
    const db = new Database(join(root, 'state.db'), { readonly: true })
    try {
      const cols = Object.keys(GOLDEN.flush[0]!)
      const rows = db
        .prepare(`SELECT ${cols.join(', ')} FROM messages WHERE session_id = ? ORDER BY id`)
        .all(sid) as Array<Record<string, string | null>>
      expect(rows.map((x) => x.role)).toEqual(GOLDEN.flush.map((x) => x.role))
      rows.forEach((row, i) => {
        for (const c of cols) {
          // The tool's own output is Caduceus's (the golden stores a stand-in); everything else is byte for byte.
          if (row.role === 'tool' && c === 'content') continue
          expect([i, c, row[c]]).toEqual([i, c, GOLDEN.flush[i]![c]])
        }
      })
      const counts = db.prepare('SELECT message_count, tool_call_count FROM sessions WHERE id = ?').get(sid)
      expect(counts).toEqual(GOLDEN.counts)
    } finally {
      db.close()
    }
  })

  it("the rows an API chat and a desk chat start hold what upstream's own rows hold", async () => {
    // upstream's api_server row: its agent's settings as model_config, no routing key, 0.0 beside 'unknown' (no price)
    expect(sharedColumns(join(root, 'state.db'), apiSession)).toEqual(entryGolden('chat'))
    const done = new Promise<void>((resolve) => {
      const off = host.bus.subscribe((e) => {
        if (e.event === 'turn.finished') (off(), resolve())
      })
    })
    const r = await host.dispatcher.invoke('sessions.start', { profile: 'default', text: 'hello' })
    if (!r.ok) throw new Error(r.error.message)
    await done
    // A desk chat is upstream's desktop row: the same columns, source 'desktop', and no routing key either.
    const desk = sharedColumns(join(root, 'state.db'), (r.output as { sessionId: string }).sessionId)
    expect(desk).toEqual({ ...entryGolden('chat'), source: 'desktop' })
    // A conversation a chat UI sends with its earlier turns is stored from them first; its row gets the settings too.
    const seeded = await new OpenAI({ baseURL: apiUrl, apiKey: KEY, maxRetries: 0 }).chat.completions
      .create({
        model: 'hermes-agent',
        messages: [
          { role: 'user', content: 'earlier question' },
          { role: 'assistant', content: 'earlier answer' },
          { role: 'user', content: 'and now?' }
        ]
      })
      .withResponse()
    const seededId = seeded.response.headers.get('x-hermes-session-id')!
    expect(sharedColumns(join(root, 'state.db'), seededId)).toEqual(entryGolden('chat'))
    // so upstream's `hermes status` counts no live gateway session (list_gateway_sessions(active_only=True))
    const db = new Database(join(root, 'state.db'), { readonly: true })
    try {
      const live = db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE session_key IS NOT NULL AND ended_at IS NULL')
      expect((live.get() as { n: number }).n).toBe(ENTRY_ROWS.gatewayActive)
    } finally {
      db.close()
    }
  })

  it("numbers a lineage title as upstream's get_next_title_in_lineage does", async () => {
    for (const c of GOLDEN.titles) {
      const dir = mkdtempSync(join(tmpdir(), 'cad-title-'))
      const store = new SessionStore(join(dir, 'state.db'), { profile: 'default' })
      try {
        for (const [i, t] of c.existing.entries()) {
          await store.createSession(`t${i}`, 'cli')
          await store.setTitle(`t${i}`, t)
        }
        expect([c.existing, c.title, nextTitleInLineage(rawDb(store), c.title)]).toEqual([c.existing, c.title, c.next])
      } finally {
        store.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }
  })
})
