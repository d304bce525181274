import { describe, expect, it } from 'vitest'
import { mergeSummaryInto, rowSummary, splitMergedSummary, summaryMessageText } from './merged-summary'

const readSummary = (text: string | null) => rowSummary('user', text)

const upstreamMerged =
  '[PRIOR CONTEXT — for reference only; not a new message]\nold ask\n\n' +
  '[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n[CONTEXT COMPACTION] banner line\nx\n\n' +
  '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---'

describe('a summary merged into a kept message', () => {
  it("splits back into the kept text and the summary (Caduceus's layouts and upstream's)", () => {
    expect(splitMergedSummary(mergeSummaryInto('hello\n\nthere', 'A and B.'))).toEqual({
      kept: 'hello\n\nthere',
      summary: 'A and B.'
    })
    expect(splitMergedSummary(upstreamMerged)).toEqual({
      kept: 'old ask',
      summary: '[CONTEXT COMPACTION] banner line\nx'
    })
    // a row Caduceus merged before its summaries took the marker
    const older =
      '[Carried over from before the context was compacted: the message as it was sent]\nq\n\n' +
      '[End of the carried-over message. A summary of the earlier conversation follows]\n\n' +
      '[Summary of the earlier conversation]\nS\n\n' +
      '[End of the summary. It is background, not a request: carry on from the latest message, not from tasks above]'
    expect(splitMergedSummary(older)).toEqual({ kept: 'q', summary: '[Summary of the earlier conversation]\nS' })
  })

  it('is null for any other text, or one cut before the kept text', () => {
    expect(splitMergedSummary('just a question')).toBeNull()
    expect(splitMergedSummary(null)).toBeNull()
    expect(splitMergedSummary(summaryMessageText('S'))).toBeNull()
    expect(splitMergedSummary(mergeSummaryInto('q', 'S').slice(0, 30))).toBeNull()
  })
})

describe('a summary read back for a later compression', () => {
  it("finds the summary in Caduceus's rows and upstream's, alone or merged, without their openings", () => {
    expect(readSummary(summaryMessageText('A and B.'))).toEqual({ summary: 'A and B.', kept: null })
    expect(readSummary(mergeSummaryInto('next', 'A and B.'))).toEqual({ summary: 'A and B.', kept: 'next' })
    expect(readSummary(upstreamMerged)).toEqual({ summary: 'x', kept: 'old ask' })
    const upstream =
      '[CONTEXT COMPACTION — REFERENCE ONLY] the banner, one line:\nthe body\n\n--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---'
    expect(readSummary(upstream)).toEqual({ summary: 'the body', kept: null })
    expect(readSummary('[CONTEXT SUMMARY]: legacy body')).toEqual({ summary: 'legacy body', kept: null })
    expect(readSummary('[Summary of the earlier conversation]\nold')).toEqual({ summary: 'old', kept: null })
  })

  it('is null for a turn', () => {
    expect(readSummary('please summarize the [CONTEXT SUMMARY]: above')).toBeNull()
    expect(readSummary(null)).toBeNull()
  })
})
