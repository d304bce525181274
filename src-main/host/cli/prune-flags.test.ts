/** `caduceus sessions prune` flags as the command line gives them (parseArgs → pruneFilter), before any home. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseArgs } from './args'
import { pruneFilter } from './prune-flags'

const NOW = 1_800_000_000
const filter = (...argv: string[]) => {
  const args = parseArgs(['sessions', 'prune', ...argv])
  return pruneFilter(args.prune ?? {}, args.model, NOW)
}

describe('prune flags', () => {
  it('archived sessions: kept by default, both with --include-archived, only them with --archived', () => {
    expect(filter()).toMatchObject({ archived: undefined, includeArchived: undefined })
    expect(filter('--include-archived')).toMatchObject({ archived: undefined, includeArchived: true })
    expect(filter('--archived')).toMatchObject({ archived: true })
    expect(filter('--no-archived')).toMatchObject({ archived: false })
  })

  it('refuses two archived flags at once, whichever two', () => {
    for (const pair of [
      ['--archived', '--no-archived'],
      ['--include-archived', '--no-archived'],
      ['--include-archived', '--archived']
    ])
      expect(() => filter(...pair)).toThrow(/one of --include-archived, --archived and --no-archived/)
  })

  it('a bare prune keeps the 90-day cutoff; any filter drops it, an archived flag does not (upstream CLI rule)', () => {
    expect(filter().olderThanDays).toBe(90)
    expect(filter('--include-archived').olderThanDays).toBe(90)
    for (const f of [
      ['--source', 'cli'],
      ['--title', 'x'],
      ['--model', 'gpt'],
      ['--min-messages', '2'],
      ['--newer-than', '1w']
    ])
      expect({ f, days: filter(...f).olderThanDays }).toEqual({ f, days: null })
  })

  it('--yes and -y skip the question; nothing else does', () => {
    expect([filter().yes, filter('--yes').yes, filter('-y').yes, filter('--dry-run').yes]).toEqual([
      false,
      true,
      true,
      false
    ])
  })

  it('a value flag followed by another flag has no value (it is not read as the value)', () => {
    expect(() => filter('--source', '--dry-run')).toThrow(/--source needs a value/)
    expect(filter('--title=--odd').titleLike).toBe('--odd')
  })

  it('reads a time the way upstream does: a duration ago, a bare number of days, an ISO date', () => {
    expect(filter('--older-than', '2d').startedBefore).toBe(NOW - 2 * 86400)
    expect(filter('--older-than', '30').startedBefore).toBe(NOW - 30 * 86400)
    expect(filter('--newer-than', '5h').startedAfter).toBe(NOW - 5 * 3600)
    expect(() => filter('--older-than', 'soon')).toThrow(/Invalid value for --older-than/)
  })
  // upstream's own parsers' answers (scripts/golden/prune_flags.py): parse_point_in_time, argparse's int and float
  const gold = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../../test/fixtures/upstream/prune-flags/answers.json'), 'utf8')
  ) as {
    tz: string
    points: Record<string, number | 'refused'>
    ints: Record<string, number | 'refused'>
    floats: Record<string, number | 'refused' | 'not finite'>
  }
  const tz = process.env.TZ
  beforeAll(() => {
    process.env.TZ = gold.tz // naive timestamps are local time: read in the zone upstream read them in
  })
  afterAll(() => {
    if (tz === undefined) delete process.env.TZ
    else process.env.TZ = tz
  })

  it('takes exactly the ISO timestamps upstream takes for --before/--after, at the same instant', () => {
    const mine = (v: string) => {
      try {
        return filter(`--before=${v}`).startedBefore
      } catch (err) {
        expect(String(err)).toContain(`Invalid value for --before: '${v}'`)
        return 'refused'
      }
    }
    const got = Object.fromEntries(Object.keys(gold.points).map((v) => [v, mine(v)]))
    const want = Object.fromEntries(
      Object.entries(gold.points).map(([v, t]) => [v, t === 'refused' ? t : expect.closeTo(t, 5)])
    )
    expect(got).toEqual(want)
    expect(got['Jan 1 2030']).toBe('refused') // Date.parse would take these
    expect(got['2020/01/01']).toBe('refused')
  })

  it('takes a count as int() does and a cost as float() does; negative and non-finite values refused', () => {
    const answer = (flag: string, v: string) => {
      try {
        return flag === '--min-cost' ? filter(flag, v).minCost : filter(flag, v).minMessages
      } catch (err) {
        expect(String(err)).toMatch(new RegExp(`${flag} needs a (whole )?number >= 0`))
        return 'refused'
      }
    }
    const safer = (n: number | string) => (typeof n === 'number' && n >= 0 ? n : 'refused')
    for (const [flag, table] of [
      ['--min-messages', gold.ints],
      ['--min-cost', gold.floats]
    ] as const) {
      const got = Object.fromEntries(Object.keys(table).map((v) => [v, answer(flag, v)]))
      expect(got, flag).toEqual(Object.fromEntries(Object.entries(table).map(([v, n]) => [v, safer(n)])))
    }
    expect(answer('--min-messages', '1.5')).toBe('refused')
  })
})
