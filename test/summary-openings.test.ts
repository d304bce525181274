// Which stored rows are compression summaries: one rule (shared/contract/merged-summary.ts rowSummary) for the
// transcript's fold, `sessions show` and the exports, turn grouping, the chain view and a later compression. The
// openings upstream writes come from its own module (scripts/golden/summary_openings.py →
// test/fixtures/upstream/summary-openings, upstream commit in golden.json), with upstream's verdict on each and on
// what a user might type; Caduceus's are its own writers'. The user path reads upstream's own continuation
// (test/fixtures/upstream/compression-interop, whose summary upstream gave the assistant role) through the host.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Message, MessagePage } from '@shared/contract'
import { mergeSummaryInto, rowSummary, summaryMessageText } from '@shared/contract/merged-summary'
import { classifyRow, isCompactionSummary, mergedSummaryOf } from '@shared/contract/notice-rows'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'
import { summarizeTurns } from '../src-renderer/pages/session/turn-usage'
import { pairToolCalls } from '../src-renderer/pages/session/tool-pairs'

interface Case {
  name: string
  text: string
  kept?: string
  older_upstream?: boolean
  upstream_is_summary: boolean
  upstream_body: string
}
const gold = join(import.meta.dirname, 'fixtures/upstream')
const golden = JSON.parse(readFileSync(join(gold, 'summary-openings/golden.json'), 'utf8')) as {
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
    expect(golden.upstream.length).toBeGreaterThanOrEqual(6)
    for (const c of golden.upstream) {
      expect(c.upstream_is_summary, c.name).toBe(true)
      for (const role of ['user', 'assistant']) {
        const r = reading(role, c.text)
        expect(r.summary, `${c.name} (${role})`).toEqual({ summary: golden.body, kept: c.kept ?? null })
        // alone it is folded; merged, the kept words show and the summary folds apart
        expect(r.fold, `${c.name} (${role})`).toBe(!c.kept)
        expect(r.merged?.kept.trim() ?? null, `${c.name} (${role})`).toBe(c.kept ?? null)
      }
      // a tool's output that opens so is that tool's output
      expect(reading('tool', c.text), c.name).toEqual({ fold: false, merged: null, summary: null })
    }
    // where upstream keeps the kept words inside the summary it carries on (its earlier merged order), Caduceus
    // splits them off; otherwise the body is upstream's
    for (const c of golden.upstream.filter((c) => !c.name.includes('earlier release')))
      expect(c.upstream_body, c.name).toBe(golden.body)
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
    for (const c of golden.other) {
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

describe("upstream's continuation read through the host: the fold and the chain view agree", () => {
  let root: string
  let host: Host
  const LOOKALIKE = golden.other.find((c) => c.name.includes('summary of the earlier conversation'))!.text
  const call = async <O>(name: string, input: unknown): Promise<O> => {
    const r = await host.dispatcher.invoke(name as never, input as never)
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r)}`)
    return (r as unknown as { output: O }).output
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cad-summary-openings-'))
    copyFileSync(join(gold, 'compression-interop/state.db'), join(root, 'state.db'))
    writeFileSync(join(root, 'config.yaml'), 'model:\n  default: demo-model\n  provider: demo\n')
    process.env.CADUCEUS_LOG_DIR = join(root, 'logs')
    // the user goes on in upstream's continuation with words that read like a summary
    const store = new SessionStore(join(root, 'state.db'))
    await store.appendMessages('up-standalone-2', [
      { role: 'user', content: LOOKALIKE },
      { role: 'assistant', content: 'The Lisbon hotel is booked.' }
    ])
    store.close()
    host = await createHost({ home: root, headless: true, live: false, log: createLogger() })
  })

  afterAll(async () => {
    await host?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('folds exactly the row the chain view opens the continuation with, and exports it so', async () => {
    const read = (sessionId: string, page: Record<string, unknown>) =>
      call<MessagePage>('sessions.messages', { profile: 'default', sessionId, limit: 100, ...page })
    // the continuation as the chain shows it: its copies of the parent's head left out, so it opens with the summary
    const tip = (await read('up-standalone-2', {})).items
    const older = (await read('up-standalone', { carriedBy: 'up-standalone-2' })).items
    const folded = (ms: Message[]) =>
      ms.filter((m) => classifyRow(m)?.kind === 'summary').map((m) => [m.id, m.role] as const)
    expect(folded(older)).toEqual([])
    expect(folded(tip)).toEqual([[tip[0]!.id, 'assistant']])
    expect(rowSummary(tip[0]!.role, tip[0]!.content)).toEqual({
      summary: expect.stringMatching(/^UP-STANDALONE: the user set up a garden/),
      kept: null
    })
    // every other row is someone's words, the user's lookalike among them
    for (const m of tip.slice(1)) expect(rowSummary(m.role, m.content), m.content ?? '').toBeNull()
    const typed = tip.find((m) => m.content === LOOKALIKE)!
    expect(typed).toMatchObject({ role: 'user' })
    expect(classifyRow(typed)).toBeNull()
    // the summary is no turn's reply: the turn strips sit under real replies only
    const byId = Object.fromEntries(tip.map((m) => [m.id, m]))
    const strips = [...summarizeTurns(Object.keys(byId).map(Number), byId, pairToolCalls(byId)).keys()]
    expect(strips).not.toContain(tip[0]!.id)
    expect(strips).toContain(tip.at(-1)!.id)

    // the chain's Markdown export: the summary headed and folded, the lookalike the user's own
    const md = await call<{ content: string }>('sessions.export', {
      profile: 'default',
      sessionId: 'up-standalone-2',
      format: 'markdown',
      lineage: true
    })
    const sections = md.content.split(/\n(?=## )/)
    const summaries = sections.filter((s) => s.startsWith('## compaction summary'))
    expect(summaries).toHaveLength(1)
    expect(summaries[0]).toMatch(
      /<details><summary>Compaction summary · [\d,]+ chars<\/summary>\n\n\[CONTEXT COMPACTION/
    )
    const asTyped = sections.filter((s) => s.includes(LOOKALIKE))
    expect(asTyped).toHaveLength(1)
    expect(asTyped[0]).toMatch(/^## user · /)
    expect(asTyped[0]).not.toContain('<details>')
  })
})
