/**
 * Issue 14 bug: "Costs total (inclusive) $6.39 vs by-model total $6.40". A child counted at its ledger price in
 * one sum and at its own session's price in another made the page's totals disagree. Every total must now be
 * the same micro-dollar sum, however it is grouped.
 */
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CostSummary, Money } from '@shared/contract'
import { sessionCost } from './session-cost'
import { costSummary } from './summary'
import { recordChildUsageAttribution } from './ledger'
import { tempHome, usageReport, type TempHome } from '../delegation/test-support'

let a: TempHome
beforeEach(() => {
  a = tempHome()
})
afterEach(() => a.cleanup())

const usage = (costUsd: number | null, model: string, tokens = 1000) =>
  usageReport(costUsd, {
    model,
    inputTokens: tokens,
    outputTokens: tokens / 10,
    cacheReadTokens: tokens / 2,
    cacheWriteTokens: tokens / 4,
    reasoningTokens: 7
  })
const dayStr = (t: number) => {
  const d = new Date(t * 1000)
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}
const micros = (m: Money | number | null | undefined) => {
  const usd = typeof m === 'number' ? m : m?.usd
  return usd == null ? 0 : Math.round(usd * 1e6)
}
const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0)

/** Sums of every grouping on the Costs page, in micro-dollars. */
function groupings(s: CostSummary) {
  return {
    total: micros(s.total),
    profiles: sum(s.profiles.map((p) => micros(p.inclusive))),
    ownPlusChildren: sum(s.profiles.map((p) => micros(p.own) + micros(p.children))),
    byModel: sum(s.byModel.map((m) => micros(m.cost))),
    byDay: sum(s.byDay.map((d) => micros(d.usd))),
    // the CSV's inclusive_usd column (6 decimals) summed
    csv: sum(s.profiles.map((p) => Math.round(Number(p.inclusive.usd!.toFixed(6)) * 1e6)))
  }
}

async function home(now: number) {
  const earlier = now - 2 * 86400
  await a.store.createSession('p', 'desktop')
  // thirds of a cent that round differently one by one than summed
  await a.store.recordUsage('p', usage(0.445, 'gpt-x'), { at: earlier, day: dayStr(earlier) })
  await a.store.recordUsage('p', usage(0.005, 'gpt-x'), { at: now, day: dayStr(now) })
  await a.store.recordUsage('p', usage(1.3333333, 'gpt-y'), { at: now, day: dayStr(now) })
  // a child whose own session price (0.333333) differs from what the ledger billed the parent (0.34)
  await a.store.createSession('c1', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
  await a.store.recordUsage('c1', usage(0.333333, 'child-model'), { at: now, day: dayStr(now) })
  await recordChildUsageAttribution(a.store, {
    parentSessionId: 'p',
    parentTurnId: 't1',
    childSessionId: 'c1',
    usage: { cost_usd: 0.34, tokens: { input: 1000, output: 100 }, api_calls: 1, model: 'child-model' },
    now
  })
  // a child the ledger never heard of counts at its own price
  await a.store.createSession('c2', 'delegate', { parentSessionId: 'p', modelConfig: { _delegate_from: 'p' } })
  await a.store.recordUsage('c2', usage(0.1234567, 'child-model'), { at: earlier, day: dayStr(earlier) })
  await a.store.createSession('q', 'cli')
  await a.store.recordUsage('q', usage(2.0055554, 'gpt-y'), { at: now, day: dayStr(now) })
  return { earlier: dayStr(earlier), today: dayStr(now) }
}

describe('one money rule for every total on the Costs page', () => {
  it('inclusive total == by profile == by model == by day == CSV, to the micro-dollar, children at ledger prices', async () => {
    const now = Date.now() / 1000
    await home(now)
    const s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    const g = groupings(s)
    // own 0.45 + 1.3333333 + 2.0055554, children 0.34 (ledger, not 0.333333) + 0.1234567 (unledgered)
    expect(g.total).toBe(450_000 + 1_333_333 + 2_005_555 + 340_000 + 123_457)
    expect(g).toEqual({
      total: g.total,
      profiles: g.total,
      ownPlusChildren: g.total,
      byModel: g.total,
      byDay: g.total,
      csv: g.total
    })
    expect(micros(s.byModel.find((m) => m.model === 'child-model')!.cost)).toBe(340_000 + 123_457)
    // the session page and the top sessions row read the same amount
    const top = s.topSessions.find((t) => t.sessionId === 'p')!
    expect(micros(top.inclusive)).toBe(micros(sessionCost(a.store, 'default', 'p').inclusive))
    expect(micros(top.inclusive)).toBe(450_000 + 1_333_333 + 340_000 + 123_457)
  })

  it('a day filter shows that day only, and its totals still agree', async () => {
    const now = Date.now() / 1000
    const { earlier, today } = await home(now)
    const full = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    for (const day of [earlier, today]) {
      const s = costSummary([{ profile: 'default', store: a.store }], { days: 30, day }, now)
      const g = groupings(s)
      expect(new Set(Object.values(g)).size).toBe(1)
      expect(s.byDay.map((d) => d.day)).toEqual([day])
      expect(g.total).toBe(micros(full.byDay.find((d) => d.day === day)!.usd))
    }
    const e = costSummary([{ profile: 'default', store: a.store }], { days: 30, day: earlier }, now)
    expect(e.topSessions.map((t) => t.sessionId)).toEqual(['p'])
    expect(micros(e.total)).toBe(445_000 + 123_457)
  })

  it('every subagent run counts once: a recent run of an old parent under it, a run a prune detached on its own', async () => {
    const now = Date.now() / 1000
    const old = now - 400 * 86400
    await a.store.createSession('old-parent', 'cli', { startedAt: old })
    await a.store.createSession('run', 'delegate', {
      parentSessionId: 'old-parent',
      modelConfig: { _delegate_from: 'old-parent' }
    })
    await a.store.recordUsage('run', usage(0.25, 'm'), { at: now, day: dayStr(now) })
    // what upstream's prune leaves of a live run whose parent it deleted: no parent, the marker kept
    await a.store.createSession('detached', 'delegate', { modelConfig: { _delegate_from: 'gone' } })
    await a.store.recordUsage('detached', usage(0.5, 'm'), { at: now, day: dayStr(now) })
    const s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    expect(micros(s.total)).toBe(250_000 + 500_000)
    expect(Object.fromEntries(s.topSessions.map((t) => [t.sessionId, micros(t.inclusive)]))).toEqual({
      'old-parent': 250_000,
      detached: 500_000
    })
    expect(groupings(s).profiles).toBe(micros(s.total))
    // a run of a run (upstream's max_spawn_depth ≥ 2) never makes its parent run a top-level session: no double count
    await a.store.createSession('grand', 'delegate', { parentSessionId: 'run', modelConfig: { _delegate_from: 'run' } })
    await a.store.recordUsage('grand', usage(0.125, 'm'), { at: now, day: dayStr(now) })
    const t = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    expect(t.topSessions.map((r) => r.sessionId).sort()).toEqual(['detached', 'old-parent'])
    const top = t.topSessions.find((r) => r.sessionId === 'old-parent')!
    expect(micros(top.inclusive)).toBe(micros(sessionCost(a.store, 'default', 'old-parent').inclusive))
    // ...and its cost counts once, under the top of its chain
    expect(micros(top.inclusive)).toBe(250_000 + 125_000)
    expect(micros(t.total)).toBe(250_000 + 500_000 + 125_000)
  })

  it('runs of runs count under the top session at every depth, ledgered or not, once, whatever the parent links', async () => {
    const now = Date.now() / 1000
    const old = now - 400 * 86400
    const run = async (id: string, parent: string, startedAt?: number) =>
      a.store.createSession(id, 'delegate', {
        parentSessionId: parent,
        modelConfig: { _delegate_from: parent },
        ...(startedAt ? { startedAt } : {})
      })
    const ledger = (parent: string, child: string, cost: number, turn = 't') =>
      recordChildUsageAttribution(a.store, {
        parentSessionId: parent,
        parentTurnId: turn,
        childSessionId: child,
        usage: { cost_usd: cost, tokens: { input: 10, output: 1 }, api_calls: 1, model: 'm' },
        now
      })
    // P $1 → C $0.50 → G $0.25, no ledger rows (upstream's homes)
    await a.store.createSession('p', 'cli')
    await a.store.recordUsage('p', usage(1, 'm'), { at: now, day: dayStr(now) })
    await run('c', 'p')
    await a.store.recordUsage('c', usage(0.5, 'm'), { at: now, day: dayStr(now) })
    await run('g', 'c')
    await a.store.recordUsage('g', usage(0.25, 'm'), { at: now, day: dayStr(now) })
    const cost = (id: string) => micros(sessionCost(a.store, 'default', id).inclusive)
    expect(cost('p')).toBe(1_750_000)
    expect(cost('c')).toBe(750_000)
    let s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    expect(micros(s.total)).toBe(1_750_000)
    expect(s.topSessions.map((r) => [r.sessionId, micros(r.inclusive)])).toEqual([['p', 1_750_000]])
    // ledgered at every level (each row the child's own run, as our writer records it): ledger prices, once each;
    // C's follow-up is a second row of its own, G still counted once
    await ledger('p', 'c', 0.6)
    await ledger('p', 'c', 0.1, 't2')
    await ledger('c', 'g', 0.3)
    expect(cost('p')).toBe(1_000_000 + 600_000 + 100_000 + 300_000)
    expect(sessionCost(a.store, 'default', 'p').children.map((c) => micros(c.cost))).toEqual([900_000, 100_000])
    s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    expect(micros(s.total)).toBe(2_000_000)
    expect(groupings(s).byModel).toBe(2_000_000)
    expect(micros(s.profiles[0]!.children)).toBe(1_000_000)
    // an old parent and an old run whose run is active today: the top owner is the old parent
    await a.store.createSession('op', 'cli', { startedAt: old })
    await run('oc', 'op', old)
    await run('og', 'oc')
    await a.store.recordUsage('og', usage(0.125, 'm'), { at: now, day: dayStr(now) })
    s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    expect(Object.fromEntries(s.topSessions.map((r) => [r.sessionId, micros(r.inclusive)]))).toEqual({
      p: 2_000_000,
      op: 125_000
    })
    // a loop of parent links (x → y → x) with no top: each counted once, under the loop's smallest id
    await a.store.createSession('x', 'delegate', { modelConfig: { _delegate_from: 'y' } })
    await run('y', 'x')
    await a.store.recordUsage('x', usage(0.0625, 'm'), { at: now, day: dayStr(now) })
    await a.store.recordUsage('y', usage(0.03125, 'm'), { at: now, day: dayStr(now) })
    // as another program leaves it: x's parent link rewritten to y
    const other = new Database(a.dbPath)
    other.prepare("UPDATE sessions SET parent_session_id = 'y' WHERE id = 'x'").run()
    other.close()
    expect(cost('x')).toBe(62_500 + 31_250)
    s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    expect(micros(s.total)).toBe(2_000_000 + 125_000 + 62_500 + 31_250)
    expect(s.topSessions.map((r) => r.sessionId).sort()).toEqual(['op', 'p', 'x'])
  })

  it('tokens and cache per day come from the per-day rows, children included', async () => {
    const now = Date.now() / 1000
    const { earlier, today } = await home(now)
    const s = costSummary([{ profile: 'default', store: a.store }], { days: 30 }, now)
    const t = Object.fromEntries(s.tokensByDay.map((d) => [d.day, d.tokens]))
    // earlier: p (1000) + c2 (1000); today: p ×2, c1, q
    expect(t[earlier]).toEqual({ input: 2000, output: 200, cacheRead: 1000, cacheWrite: 500, reasoning: 14 })
    expect(t[today]).toEqual({ input: 4000, output: 400, cacheRead: 2000, cacheWrite: 1000, reasoning: 28 })
  })
})
