// Compression summaries across the two programs sharing a v21 home (scripts/golden/compression_interop.py →
// test/fixtures/upstream/compression-interop, upstream commit in golden.json). Upstream v21 knows an earlier summary
// only by the text it starts with: the golden holds the continuations Caduceus wrote and what upstream's own
// compressor made of them, and the continuations upstream wrote, which Caduceus compresses here.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionStore } from '../src-main/store'
import { Agent } from '../src-main/agent/agent'
import { ToolRegistry } from '../src-main/agent/tools/registry'
import { startScriptedProvider } from '../src-main/agent/scripted'
import { isSummaryCall, testRuntime } from '../src-main/agent/test-fixtures/kit'
import { rawDb } from '../src-main/store/test-fixtures/raw-db'
import { mergeSummaryInto, rowSummary, summaryMessageText } from '@shared/contract/merged-summary'
import { classifyRow, isCompactionSummary, mergedSummaryOf } from '@shared/contract/notice-rows'

const gold = join(import.meta.dirname, 'fixtures/upstream/compression-interop')
const golden = JSON.parse(readFileSync(join(gold, 'golden.json'), 'utf8')) as {
  caduceus: Record<
    string,
    {
      case: { sessionId: string; text: string; protectLastN: number; summary: string }
      parent_messages: Array<[string, string]>
      child_rows: Array<[string, string]>
      upstream: {
        is_summary: boolean[]
        latest_summary: { index: number | null; body: string }
        last_user_index: number
        roles: string[]
        fold: {
          previous_summary: string | null
          updates_previous_summary: boolean
          summary_marker_among_turns: boolean
        }
      }
    }
  >
  upstream: Record<string, { child: string; summary: string; roles: string[]; is_summary: boolean[]; merged: boolean }>
  earlier_caduceus_layouts_are_summaries: Record<string, boolean>
}

const dirs: string[] = []
const closers: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** One compressing turn on `sessionId` in `store`: the summarizer answers `summary`; its requests are returned. */
async function compress(store: SessionStore, sessionId: string, text: string, protectLastN: number, summary: string) {
  const provider = await startScriptedProvider({
    handler: (req) => (isSummaryCall(req) ? { text: summary } : { text: 'Carried on after the compression.' })
  })
  closers.push(() => provider.close())
  const agent = new Agent({
    profile: 'default',
    sessionId,
    store,
    runtime: testRuntime(provider.baseUrl),
    tools: new ToolRegistry(),
    maxIterations: 4,
    gatewaySessionKey: '',
    compression: { enabled: true, threshold: 0.5, contextLength: 1000, protectLastN }
  })
  const r = await agent.runTurn(text)
  await agent.close()
  expect(r.status).toBe('completed')
  expect(agent.sessionId).not.toBe(sessionId)
  return { child: agent.sessionId, asked: provider.requests.filter(isSummaryCall) }
}

const rowsOf = (store: SessionStore, sessionId: string) =>
  (
    rawDb(store)
      .prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id')
      .all(sessionId) as Array<{ role: string; content: string }>
  ).map((r) => [r.role, r.content])

describe("Caduceus's continuation, as upstream's compressor reads it back", () => {
  it('writes the summary, alone or merged, in the text upstream took for a summary and folded', async () => {
    // what upstream made of the layouts Caduceus wrote before: turns, summarized as if someone had said them
    expect(golden.earlier_caduceus_layouts_are_summaries).toEqual({ standalone: false, merged: false })
    const dir = mkdtempSync(join(tmpdir(), 'cad-compress-interop-'))
    dirs.push(dir)
    const store = new SessionStore(join(dir, 'state.db'))
    closers.push(() => store.close())
    for (const [key, g] of Object.entries(golden.caduceus)) {
      // upstream's verdicts on what Caduceus wrote (the golden), after it went on in the continuation
      const up = g.upstream
      expect(
        up.is_summary.map((s, i) => (s ? i : -1)).filter((i) => i >= 0),
        key
      ).toEqual([0])
      expect(up.latest_summary.index, key).toBe(0)
      expect(up.latest_summary.body.startsWith(g.case.summary), key).toBe(true)
      expect(up.fold, key).toMatchObject({
        previous_summary: up.latest_summary.body,
        updates_previous_summary: true,
        summary_marker_among_turns: false
      })
      expect(up.roles[up.last_user_index], key).toBe('user')
      expect(up.last_user_index, key).toBeGreaterThan(0)

      // Caduceus still writes exactly those rows for the same conversation
      await store.createSession(g.case.sessionId, 'cli')
      for (const [role, content] of g.parent_messages)
        await store.appendMessage(g.case.sessionId, { role: role as 'user', content })
      const { child } = await compress(store, g.case.sessionId, g.case.text, g.case.protectLastN, g.case.summary)
      expect(rowsOf(store, child), key).toEqual(g.child_rows)
    }
  })
})

describe("upstream's continuation, as Caduceus compresses it", () => {
  it("folds upstream's summary, alone or merged, in as an earlier summary, never as a turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cad-compress-interop-'))
    dirs.push(dir)
    copyFileSync(join(gold, 'state.db'), join(dir, 'state.db'))
    const store = new SessionStore(join(dir, 'state.db'))
    closers.push(() => store.close())
    for (const [key, g] of Object.entries(golden.upstream)) {
      expect(g.is_summary.filter(Boolean), key).toHaveLength(1)
      const { child, asked } = await compress(store, g.child, `${key} goes on in Caduceus`, 2, `CAD-AFTER-${key}`)
      const told = String(asked[0]!.body.messages[1].content)
      // the earlier summary in its place (after the turns upstream kept ahead of it), without its opening or end line
      expect(told, key).toContain(`\n\n[earlier summary]: ${g.summary}\n\n`)
      expect(told, key).not.toMatch(/CONTEXT COMPACTION|PRIOR CONTEXT|END OF CONTEXT SUMMARY/)
      expect(told.match(/\[earlier summary\]/g), key).toHaveLength(1)
      if (g.merged) {
        // the kept message's own words stay a turn of the user's, after the summary
        const kept = rowsOf(store, g.child)[g.is_summary.indexOf(true)]![1]!.split('\n')[1]!
        expect(told, key).toContain(`\n\n[user]: ${kept}`)
      }
      expect(rowsOf(store, child)[0]![1]!.startsWith(`[CONTEXT SUMMARY]:\nCAD-AFTER-${key}`), key).toBe(true)
    }
  })
})

// Which stored rows are compression summaries: one rule (rowSummary) for the transcript's fold, `sessions show` and the
// exports, turn grouping, the chain view and a later compression. The openings upstream writes come from its own module
// (scripts/golden/summary_openings.py → test/fixtures/upstream/summary-openings, upstream commit in golden.json), with
// upstream's verdict on each and on what a user might type; Caduceus's are its own writers'.
interface Case {
  name: string
  text: string
  kept?: string
  older_upstream?: boolean
  upstream_is_summary: boolean
  upstream_body: string
}
const openings = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/upstream/summary-openings/golden.json'), 'utf8')
) as {
  body: string
  upstream: Case[]
  other: Case[]
}

/** What every reading makes of a row: the transcript's card, the merged split, the chain view's and compression's. */
const reading = (role: string, content: string) => ({
  fold: classifyRow({ role, content, displayKind: null, finishReason: null, toolCalls: null })?.kind === 'summary',
  merged: mergedSummaryOf({ role, content }),
  summary: rowSummary(role, content)
})

describe('a compression summary, by its opening', () => {
  it("each of upstream's openings is a summary in either role it gives one, holding the body upstream reads", () => {
    expect(openings.upstream.length).toBeGreaterThanOrEqual(6)
    for (const c of openings.upstream) {
      expect(c.upstream_is_summary, c.name).toBe(true)
      for (const role of ['user', 'assistant']) {
        const r = reading(role, c.text)
        expect(r.summary, `${c.name} (${role})`).toEqual({ summary: openings.body, kept: c.kept ?? null })
        // alone it is folded; merged, the kept words show and the summary folds apart
        expect(r.fold, `${c.name} (${role})`).toBe(!c.kept)
        expect(r.merged?.kept.trim() ?? null, `${c.name} (${role})`).toBe(c.kept ?? null)
      }
      // a tool's output that opens so is that tool's output
      expect(reading('tool', c.text), c.name).toEqual({ fold: false, merged: null, summary: null })
    }
    // where upstream keeps the kept words inside the summary it carries on (its earlier merged order), Caduceus
    // splits them off; otherwise the body is upstream's
    for (const c of openings.upstream.filter((c) => !c.name.includes('earlier release')))
      expect(c.upstream_body, c.name).toBe(openings.body)
  })

  it("each of Caduceus's layouts, current and earlier, is a summary (upstream reads the earlier ones as turns)", () => {
    const old = '[Summary of the earlier conversation]\nS'
    const oldMerged =
      '[Carried over from before the context was compacted: the message as it was sent]\nq\n\n' +
      '[End of the carried-over message. A summary of the earlier conversation follows]\n\n' +
      '[Summary of the earlier conversation]\nS\n\n' +
      '[End of the summary. It is background, not a request: carry on from the latest message, not from tasks above]'
    const rows: Array<[string, { summary: string; kept: string | null }]> = [
      [summaryMessageText('S'), { summary: 'S', kept: null }],
      [mergeSummaryInto('q', 'S'), { summary: 'S', kept: 'q' }],
      [old, { summary: 'S', kept: null }],
      [oldMerged, { summary: 'S', kept: 'q' }]
    ]
    for (const [text, want] of rows) {
      const r = reading('user', text)
      expect(r.summary, text).toEqual(want)
      expect(r.fold, text).toBe(want.kept === null)
      expect(r.merged?.kept ?? null, text).toBe(want.kept)
    }
  })

  it("an older upstream's bare head is a summary; what a user types about a summary is the user's message", () => {
    for (const c of openings.other) {
      const mine = !!c.older_upstream
      // upstream v21 takes none of these for a summary (its older releases wrote the bare head)
      expect(c.upstream_is_summary, c.name).toBe(false)
      for (const role of ['user', 'assistant']) {
        const r = reading(role, c.text)
        expect(r.summary !== null, `${c.name} (${role})`).toBe(mine)
        expect(r.fold, `${c.name} (${role})`).toBe(mine)
        expect(r.merged, c.name).toBeNull()
        expect(isCompactionSummary(role, c.text), c.name).toBe(mine)
      }
    }
  })
})
