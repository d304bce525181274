/** `caduceus sessions prune` flags as the command line gives them (parseArgs → pruneFilter), before any home. */
import { describe, expect, it } from 'vitest'
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
})
