import { describe, expect, it } from 'vitest'
import { INITIAL_FIELDS, moreFiltersSet, pruneRequest, type PruneFields } from './prune-form'

const NOW = 1_800_000_000
const DAY = 86400
const req = (f: Partial<PruneFields>) => pruneRequest({ ...INITIAL_FIELDS, ...f }, NOW)

describe('pruneRequest', () => {
  it('an empty age with no other filter is a bare prune (90 days), never "every ended session"', () => {
    const r = req({ days: '' })
    expect(r.errors).toEqual({})
    expect(r.defaultAge).toBe(true)
    expect(r.filter).toEqual({ startedBefore: NOW - 90 * DAY, olderThanDays: null })
    // the archived choice is no filter (upstream's CLI rule): still the bare prune's cutoff
    expect(req({ days: '', archived: 'include' }).filter).toEqual({
      startedBefore: NOW - 90 * DAY,
      includeArchived: true,
      olderThanDays: null
    })
    expect(req({ days: '  ', archived: 'only' }).defaultAge).toBe(true)
  })

  it('an empty age beside any filter is no age bound, as `prune --source cron` is', () => {
    for (const [f, key, want] of [
      [{ source: ' cron ' }, 'source', 'cron'],
      [{ model: 'gpt' }, 'modelLike', 'gpt'],
      [{ title: 'Draft' }, 'titleLike', 'Draft'],
      [{ minMessages: '3' }, 'minMessages', 3],
      [{ maxCost: '0.25' }, 'maxCost', 0.25]
    ] as const) {
      const r = req({ days: '', ...f })
      expect(r.defaultAge).toBe(false)
      expect(r.filter).toEqual({ [key]: want, olderThanDays: null })
    }
  })

  it('an age becomes an absolute cutoff; with "started before" the tighter wins', () => {
    expect(req({}).filter).toEqual({ startedBefore: NOW - 90 * DAY, olderThanDays: null })
    expect(req({ days: '0' }).filter).toEqual({ startedBefore: NOW, olderThanDays: null })
    expect(req({ days: '1.5' }).filter.startedBefore).toBe(NOW - 1.5 * DAY)
    const before = new Date('2020-01-02T03:04').getTime() / 1000
    expect(req({ days: '7', before: '2020-01-02T03:04' }).filter.startedBefore).toBe(before)
    expect(req({ days: '', before: '2099-01-01T00:00' }).filter.startedBefore).toBe(
      new Date('2099-01-01T00:00').getTime() / 1000
    )
    expect(req({ days: '7', before: '2099-01-01T00:00' }).filter.startedBefore).toBe(NOW - 7 * DAY)
  })

  it('refuses what the CLI refuses, on the field at fault', () => {
    expect(req({ days: 'abc' }).errors.days).toMatch(/number of days/)
    expect(req({ days: '-1' }).errors.days).toMatch(/number of days/)
    expect(req({ days: '40000' }).errors.days).toMatch(/number of days/)
    expect(req({ after: 'yesterday' }).errors.after).toBe('Enter a date and time')
    expect(req({ days: '', after: '2020-01-02T00:00', before: '2020-01-01T00:00' }).errors.after).toMatch(/empty/)
    expect(req({ minMessages: '1.5' }).errors.minMessages).toMatch(/whole number/)
    expect(req({ maxTokens: '-3' }).errors.maxTokens).toMatch(/whole number/)
    expect(req({ minCost: 'x' }).errors.minCost).toMatch(/a number/)
    expect(req({ minToolCalls: '5', maxToolCalls: '2' }).errors.maxToolCalls).toMatch(/minimum/)
    expect(req({ source: 'x'.repeat(513) }).errors.source).toMatch(/512/)
  })

  it('every filter lands where sessions.prune reads it', () => {
    const r = req({
      days: '',
      after: '2020-01-01',
      source: 'cli',
      title: 't',
      model: 'm',
      provider: 'p',
      endReason: 'e',
      cwd: '/w',
      branch: 'b',
      user: 'u',
      chatId: 'c',
      chatType: 'dm',
      archived: 'only',
      minMessages: '1',
      maxMessages: '2',
      minTokens: '3',
      maxTokens: '4',
      minCost: '.5',
      maxCost: '6',
      minToolCalls: '7',
      maxToolCalls: '8'
    })
    expect(r.errors).toEqual({})
    expect(r.filter).toEqual({
      startedAfter: new Date('2020-01-01T00:00').getTime() / 1000,
      source: 'cli',
      titleLike: 't',
      modelLike: 'm',
      provider: 'p',
      endReason: 'e',
      cwdPrefix: '/w',
      branchLike: 'b',
      userId: 'u',
      chatId: 'c',
      chatType: 'dm',
      archived: true,
      minMessages: 1,
      maxMessages: 2,
      minTokens: 3,
      maxTokens: 4,
      minCost: 0.5,
      maxCost: 6,
      minToolCalls: 7,
      maxToolCalls: 8,
      olderThanDays: null
    })
    expect(moreFiltersSet({ ...INITIAL_FIELDS, model: 'm', source: 'cli', maxCost: '1' })).toBe(2)
  })
})
