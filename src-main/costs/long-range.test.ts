// The Costs page past a year: all of the history, and a period of given days, however old. The last-N-days view
// stopped at 3650 days in the contract and at 365 on the page, so spend older than a year could not be seen at all.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { costSummary } from './summary'
import { tempHome, usageReport, type TempHome } from '../delegation/test-support'
import { dayOf } from './pieces'

let a: TempHome
beforeEach(() => {
  a = tempHome()
})
afterEach(() => a.cleanup())

const micros = (usd: number | null | undefined) => Math.round((usd ?? 0) * 1e6)
const DAY = 86400

async function spendAt(id: string, at: number, usd: number): Promise<void> {
  await a.store.createSession(id, 'cli', { startedAt: at })
  await a.store.recordUsage(id, usageReport(usd, { model: 'm', inputTokens: 100, outputTokens: 10 }), {
    at,
    day: dayOf(at)
  })
}

describe('periods longer than a year', () => {
  it('all of the history, a from–to period and an open-ended one, each with its tokens per day', async () => {
    const now = Date.now() / 1000
    const old = now - 3 * 365 * DAY // three years back
    const mid = now - 500 * DAY
    await spendAt('old', old, 1.25)
    await spendAt('mid', mid, 0.5)
    await spendAt('new', now - DAY, 0.25)
    const stores = [{ profile: 'default', store: a.store }]

    const year = costSummary(stores, { days: 365 }, now)
    expect(micros(year.total.usd)).toBe(250_000)

    const all = costSummary(stores, { all: true, days: 30 }, now)
    expect(micros(all.total.usd)).toBe(2_000_000)
    expect(all.byDay.map((d) => d.day)).toEqual([dayOf(old), dayOf(mid), dayOf(now - DAY)])
    expect(all.tokensByDay.map((d) => d.day)).toEqual([dayOf(old), dayOf(mid), dayOf(now - DAY)])
    expect(all.topSessions.map((t) => t.sessionId)).toEqual(['old', 'mid', 'new'])

    // both ends are days included
    const span = costSummary(stores, { from: dayOf(old), to: dayOf(mid) }, now)
    expect(micros(span.total.usd)).toBe(1_750_000)
    expect(span.tokensByDay.map((d) => d.day)).toEqual([dayOf(old), dayOf(mid)])
    // a session begun after the period is none of its sessions
    expect(span.profiles[0]!.sessions).toBe(2)
    expect(span.topSessions.map((t) => t.sessionId)).toEqual(['old', 'mid'])
    const after = costSummary(stores, { from: dayOf(mid + DAY) }, now)
    expect(micros(after.total.usd)).toBe(250_000)
    const upTo = costSummary(stores, { to: dayOf(old) }, now)
    expect(micros(upTo.total.usd)).toBe(1_250_000)
  })
})
