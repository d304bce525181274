import { describe, expect, it } from 'vitest'
import { mergeSummaryInto, splitMergedSummary } from './merged-summary'

describe('a summary merged into a kept message', () => {
  it("splits back into the kept text and the summary (Caduceus's markers and upstream's)", () => {
    const summary = '[Summary of the earlier conversation]\nA and B.'
    expect(splitMergedSummary(mergeSummaryInto('hello\n\nthere', summary))).toEqual({
      kept: 'hello\n\nthere',
      summary
    })
    const upstream =
      '[PRIOR CONTEXT — for reference only; not a new message]\nold ask\n\n' +
      '[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n[CONTEXT COMPACTION] x\n\n' +
      '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---'
    expect(splitMergedSummary(upstream)).toEqual({ kept: 'old ask', summary: '[CONTEXT COMPACTION] x' })
  })

  it('is null for any other text, or one cut before the summary', () => {
    expect(splitMergedSummary('just a question')).toBeNull()
    expect(splitMergedSummary(null)).toBeNull()
    expect(splitMergedSummary(mergeSummaryInto('q', 'S').slice(0, 100))).toBeNull()
  })
})
