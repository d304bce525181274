import { describe, expect, it } from 'vitest'
import type { SessionSummary } from '@shared/contract'
import { summary } from '../../test-utils/fixtures'
import { buildCommands } from './commands'

type CommandContext = Parameters<typeof buildCommands>[0]

const at = (iso: string) => Date.parse(iso) / 1000

const session = (id: string, title: string | null, lastActiveAt: number, preview: string | null = null) =>
  summary(id, { title, preview, model: null, startedAt: lastActiveAt, lastActiveAt })

const ctx = (sessions: SessionSummary[]): CommandContext => ({
  route: { page: 'sessions' } as CommandContext['route'],
  profiles: ['default', 'research'],
  sessions,
  navigate: () => {},
  setScope: () => {},
  cycleTheme: () => {},
  searchMessages: () => {},
  focusComposer: () => {}
})

const sessions = [
  session('20261201_090000_aaaa11', 'Fix the heater', at('2026-12-01T09:00:00')),
  session('20261202_090000_bbbb22', 'Fix the heater', at('2026-12-02T09:00:00')),
  session('20261203_120000_cccc33', 'Lisbon trip itinerary', at('2026-12-03T12:00:00')),
  session('20261204_080000_dddd44', null, at('2026-12-04T08:00:00'), 'Rename my photos by the date they were taken')
]

describe('palette commands', () => {
  it('matches words fuzzily, each on its own and in any order', () => {
    const ids = (q: string) => buildCommands(ctx(sessions), q).map((c) => c.id)
    expect(ids('lisbn trp')[0]).toBe('session:default/20261203_120000_cccc33')
    expect(ids('trp lisbn')[0]).toBe('session:default/20261203_120000_cccc33')
    expect(ids('lisbn xyzzy')).not.toContain('session:default/20261203_120000_cccc33')
  })

  it('matches sessions by first message, id and date, and shows their dates', () => {
    const first = (q: string) => buildCommands(ctx(sessions), q)[0]
    expect(first('photos taken')?.sessionId).toBe('20261204_080000_dddd44')
    expect(first('bbbb22')?.sessionId).toBe('20261202_090000_bbbb22')
    const heaters = buildCommands(ctx(sessions), 'heater').filter((c) => c.group === 'Sessions')
    // local time, as the sessions were stamped
    expect(heaters.map((c) => c.date)).toEqual(['2026-12-01 09:00', '2026-12-02 09:00'])
    expect(first('2026-12-02')?.sessionId).toBe('20261202_090000_bbbb22')
  })

  it('puts a page first for a partial page name and never an action for a loose match', () => {
    expect(buildCommands(ctx(sessions), 'sess')[0]?.id).toBe('page:sessions')
    expect(buildCommands(ctx(sessions), 'setings')[0]?.id).toBe('page:settings')
    // "re" loosely matches "New chat in research" and "Switch profile: research": Enter must not run those
    const re = buildCommands(ctx(sessions), 're')
    expect(re[0]!.group === 'Pages' || re[0]!.group === 'Sessions' || re[0]!.id === 'act:search').toBe(true)
    expect(re.findIndex((c) => c.id === 'act:new:research')).toBeGreaterThan(re.findIndex((c) => c.id === 'act:search'))
    // typed by name, an action leads
    expect(buildCommands(ctx(sessions), 'new chat')[0]?.id).toBe('act:new:default')
  })
})
