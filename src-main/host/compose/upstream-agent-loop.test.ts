// The home upstream Hermes's own agent loop wrote end to end (scripts/golden/agent_loop.py: AIAgent.run_conversation
// with its real tools, a background delegate_task and its subagent child, /title), read through the host's
// requests and compared with what upstream's own SessionDB readers return for it (golden.json).
//
// Then compression chains upstream's loop wrote (scripts/golden/compression_chain.py: AIAgent rotating to a
// continuation, test/fixtures/upstream/compression-chain), read as the transcript page reads a chain: the tip's details
// (sessions.get) name its parts and count what each shows, each earlier part is read with `carriedBy` its next one.
// Upstream's continuation copies the parent's opening messages (its protected head) ahead of its summary and the kept
// tail after it, and may fold the first kept message — a question too — into the summary row. Each message shows once,
// in the order it was said, and the rows stay as upstream wrote them.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  splitMergedSummary,
  type MessagePage,
  type SearchResult,
  type SessionCost,
  type SessionDetail,
  type SessionPage,
  type SubagentList
} from '@shared/contract'
import { createHost } from './create-host'
import { createLogger } from '../log/log'
import { cleanupTempDirs, tempDir } from '../../store/test-fixtures/tmp'
import golden from '../../../test/fixtures/upstream/agent-loop/golden.json'
import chains from '../../../test/fixtures/upstream/compression-chain/golden.json'

const GOLDEN = resolve(import.meta.dirname, '../../../test/fixtures/upstream/agent-loop')
const profile = 'default'

afterAll(cleanupTempDirs)

async function withHost(fn: (call: <T>(name: string, input: unknown) => Promise<T>) => Promise<void>): Promise<void> {
  const home = tempDir()
  cpSync(join(GOLDEN, 'state.db'), join(home, 'state.db'))
  const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const r = (await host.dispatcher.invoke(name as never, input as never)) as { ok: boolean; output?: T }
    expect(r.ok, `${name}: ${JSON.stringify(r)}`).toBe(true)
    return r.output as T
  }
  try {
    await fn(call)
  } finally {
    await host.close()
  }
}

const child = golden.list.find((s) => s.source === 'subagent')!

describe("a home upstream's agent loop wrote, through the host", () => {
  it("lists every session with upstream's titles, counts, tokens and parent link", async () => {
    await withHost(async (call) => {
      const { items } = await call<SessionPage>('sessions.list', { profile, includeChildren: true })
      const got = items.map((s) => ({
        id: s.id,
        parent: s.parentSessionId,
        title: s.title,
        messages: s.messageCount,
        toolCalls: s.toolCallCount,
        tokens: [s.tokens.input, s.tokens.output, s.tokens.cacheRead]
      }))
      const want = golden.list.map((s) => ({
        id: s.id,
        parent: s.parent_session_id,
        title: s.title,
        messages: s.message_count,
        toolCalls: s.tool_call_count,
        tokens: [s.input_tokens, s.output_tokens, s.cache_read_tokens]
      }))
      // by id: the list is ordered by last activity (upstream's dashboard "recent"), `hermes sessions list` by start
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
      expect(got.sort(byId)).toEqual(want.sort(byId))
      expect(items.find((s) => s.id === child.id)?.kind).toBe('delegate')
    })
  })

  it("reads each transcript as upstream's export holds it: roles, text, tool names and call ids, reasoning", async () => {
    await withHost(async (call) => {
      for (const [id, want] of Object.entries(golden.export_messages)) {
        const { items } = await call<MessagePage>('sessions.messages', { profile, sessionId: id, limit: 100 })
        // Rows upstream compacted in place (active 0, compacted 1) stay on the page, flagged; its export has the rest.
        const got = items
          .filter((m) => !m.compacted)
          .map((m) => ({
            role: m.role,
            content: m.content,
            tool_name: m.toolName,
            tool_call_id: m.toolCallId,
            reasoning: m.reasoning
          }))
        expect(got, id).toEqual(want)
      }
      const { items } = await call<MessagePage>('sessions.messages', {
        profile,
        sessionId: golden.ids.compress,
        limit: 100
      })
      expect(items.filter((m) => m.compacted).length).toBe(13)
    })
  })

  it("gives the subagent the same tokens on the Subagents page as in its parent's cost breakdown", async () => {
    await withHost(async (call) => {
      const { items } = await call<SubagentList>('subagents.list', { profile })
      const sub = items.find((s) => s.childSessionId === child.id)
      const cost = await call<SessionCost>('costs.session', { profile, sessionId: child.parent_session_id })
      const detail = await call<SessionDetail>('sessions.get', { profile, sessionId: child.id })
      expect(sub?.tokens).toEqual(cost.children.find((c) => c.childSessionId === child.id)?.tokens)
      expect(sub?.tokens).toEqual(detail.summary.tokens)
      expect(sub?.tokens.cacheRead).toBe(child.cache_read_tokens)
    })
  })
})

const CHAINS = resolve(import.meta.dirname, '../../../test/fixtures/upstream/compression-chain')
const PYTHON = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'

describe("a compression chain upstream's agent loop wrote, through the host", () => {
  let home = ''
  let host: Awaited<ReturnType<typeof createHost>>
  const rowsOf = () => {
    const db = new Database(join(home, 'state.db'), { readonly: true })
    try {
      return db.prepare('SELECT * FROM messages ORDER BY id').all()
    } finally {
      db.close()
    }
  }
  let before: unknown[] = []

  beforeAll(async () => {
    home = tempDir()
    cpSync(join(CHAINS, 'state.db'), join(home, 'state.db'))
    before = rowsOf()
    host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
  })
  afterAll(async () => {
    await host?.close()
  })

  const callChains = async <T>(name: string, input: unknown): Promise<T> => {
    const r = (await host.dispatcher.invoke(name as never, input as never)) as { ok: boolean; output?: T }
    expect(r.ok, `${name}: ${JSON.stringify(r)}`).toBe(true)
    return r.output as T
  }

  /** Each part's rows as the transcript reads them: an earlier part's page with `carriedBy` its continuation. */
  async function partPages(parts: string[]): Promise<Array<MessagePage['items']>> {
    const pages = []
    for (const [i, sessionId] of parts.entries()) {
      const next = parts[i + 1]
      const page = await callChains<MessagePage>('sessions.messages', {
        profile,
        sessionId,
        limit: 200,
        ...(next ? { carriedBy: next } : {})
      })
      pages.push(page.items)
    }
    return pages
  }

  /** The chain opened at its tip, as the transcript reads it, each row by a short label. */
  async function chainView(tip: string) {
    const detail = await callChains<SessionDetail>('sessions.get', { profile, sessionId: tip })
    const parts = detail.lineage.chain.map((r) => r.id)
    // a summary merged into a kept message reads as that message (the transcript folds the summary apart)
    const label = (m: MessagePage['items'][number]) => {
      const text = m.summaryMerged ? `merged: ${splitMergedSummary(m.content)!.kept}` : (m.content ?? '')
      return text.startsWith('[CONTEXT COMPACTION') ? 'summary' : text.split(' lorem')[0]!.replace(/^CHAIN-\w+ /, '')
    }
    const pages = (await partPages(parts)).map((items) => items.map(label))
    return { detail, parts, pages }
  }

  it('shows the parent’s opening once (in the parent), then the summary, then the kept tail once', async () => {
    const { ids } = chains
    const { detail, parts, pages } = await chainView(ids.standalone.tip)
    // compressed twice: three parts (upstream's second compression keeps no head: its protect_first_n decays)
    expect(parts).toEqual(ids.standalone.parts)
    const round = (r: string) => [0, 1, 2].flatMap((i) => [`${r}question ${i}`, `answer ${i}`]).concat(`${r}question 3`)
    const tool = ['', '{"output": "standalone", "exit_code": 0, "error": null}']
    const after = (r: string) => ['answer after compression', `${r}question after`, 'answer after']
    expect(pages).toEqual([
      round(''),
      ['summary', 'answer 3', 'question 4: compress now', ...tool, ...after(''), ...round('round 2 ')],
      ['merged: CHAIN-STANDALONE answer 3', 'round 2 question 4: compress now', ...tool, ...after('round 2 ')]
    ])
    // the part boundaries as the chain marker counts them: what each part shows
    expect(detail.lineage.chain.map((r) => r.chainMessages)).toEqual(pages.map((p) => p.length))
  })

  it('a kept answer or question folded into the summary row shows there, where the conversation goes on', async () => {
    for (const [key, folded] of [
      ['merged', 'answer 3'],
      ['question', 'question 2']
    ] as const) {
      const { pages } = await chainView(chains.ids[key].tip)
      const [parent, continuation] = pages
      expect(parent, key).not.toContain(folded)
      expect(continuation![0], key).toBe(`merged: CHAIN-${key.toUpperCase()} ${folded}`)
      // every message of the chain once
      const all = pages.flat().filter((t) => t !== '')
      expect(new Set(all).size, key).toBe(all.length)
      expect(parent!.slice(0, 2), key).toEqual(['question 0', 'answer 0'])
      expect(continuation, key).not.toContain('question 0')
    }
  })

  it('search finds each message of a chain once, on the row the chain view shows (a message said twice: twice)', async () => {
    for (const [key, { tip, parts }] of Object.entries(chains.ids)) {
      // every row the chain view shows, each part read as the transcript reads it
      const shown = (await partPages(parts)).flat().map((m) => ({ id: m.id, text: (m.content ?? '').toLowerCase() }))
      // a copy of the parent's opening (the head), of its kept tail, a question folded into the summary, a later turn
      for (const said of ['question 0', 'answer 1', 'answer 3', 'question 2', 'question 4', 'answer after']) {
        const words = `${key} ${said}`
        const result = await callChains<SearchResult>('sessions.search', { profile, query: `"${words}"`, limit: 50 })
        const hits = result.hits.filter((h) => parts.includes(h.sessionId))
        const want = shown.filter((m) => m.text.includes(`chain-${words}`)).map((m) => m.id)
        expect(want.length, words).toBeGreaterThan(0)
        expect(
          hits.map((h) => h.messageId).sort((a, b) => a - b),
          words
        ).toEqual(want.sort((a, b) => a - b))
        // one result, under the chain's tip, counting what it shows
        expect(new Set(hits.map((h) => h.chainId ?? h.sessionId)), words).toEqual(new Set([tip]))
        expect(
          result.sessions?.filter((g) => parts.includes(g.sessionId)),
          words
        ).toEqual([expect.objectContaining({ sessionId: tip, hits: want.length })])
      }
    }
    // a page of one: the copy (newer) gives way, and the original fills the page
    const one = await callChains<SearchResult>('sessions.search', { profile, query: '"merged question 0"', limit: 1 })
    expect(one.hits.map((h) => h.sessionId)).toEqual([chains.ids.merged.root])
    // a page of one hit holds one chain: every other chain's count (no hit of its on the page) is right too
    // (a head copy's original, a kept tail's copy)
    for (const said of ['question 0', 'answer 3']) {
      const counts = await callChains<SearchResult>('sessions.search', { profile, query: `"${said}"`, limit: 1 })
      expect(counts.hits).toHaveLength(1)
      for (const { tip, parts } of Object.values(chains.ids)) {
        const shown = (await partPages(parts)).flat().filter((m) => (m.content ?? '').includes(` ${said} lorem`))
        expect(counts.sessions?.find((g) => g.sessionId === tip)?.hits, `${tip} ${said}`).toBe(shown.length)
      }
    }
    // the standalone chain's round 1 and round 2 answers are the same text, both said: two hits
    const twice = await callChains<SearchResult>('sessions.search', { profile, query: '"standalone answer 3"' })
    expect(twice.hits).toHaveLength(2)
  })

  it('leaves the rows as upstream wrote them: its own SessionDB reads the same transcripts', () => {
    expect(rowsOf()).toEqual(before)
    if (!existsSync(join(UPSTREAM, 'hermes_state.py'))) return
    // one upstream process reads every session of the home after the host's reads
    const read = `import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from hermes_state import SessionDB
db = SessionDB(db_path=Path(sys.argv[2]))
out = {}
for sid in json.loads(sys.argv[3]):
    out[sid] = [[m["role"], (m.get("content") or "")[:80]] for m in db.get_messages_as_conversation(sid)]
print(json.dumps(out))`
    const ids = Object.values(chains.ids).flatMap((p) => p.parts)
    const seen = JSON.parse(
      execFileSync(PYTHON, ['-c', read, UPSTREAM, join(home, 'state.db'), JSON.stringify(ids)], { encoding: 'utf8' })
    ) as Record<string, unknown>
    const want = Object.fromEntries(Object.values(chains.cases).flatMap((c) => Object.entries(c.rows)))
    expect(seen).toEqual(want)
  })
})
