import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ThinkScrubber, inlineReasoning, withoutThinkBlocks } from './think-scrub'

const golden = JSON.parse(
  readFileSync(join(__dirname, '../../test/fixtures/upstream/inline-think/cases.json'), 'utf8')
) as { scrubber: { deltas: string[]; fed: string[]; flush: string }[] }

describe('inline reasoning tags (upstream golden inline-think)', () => {
  it.each(golden.scrubber.map((c) => [JSON.stringify(c.deltas), c] as const))(
    'a stream of %s shows what upstream shows, delta by delta',
    (_name, c) => {
      const s = new ThinkScrubber()
      expect(c.deltas.map((d) => s.feed(d).text)).toEqual(c.fed)
      expect(s.flush().text).toBe(c.flush)
    }
  )

  it('keeps what was inside the blocks as reasoning, and a whole reply splits the same way', () => {
    const s = new ThinkScrubber()
    const got = ['<thi', 'nk>plan ', 'it</th', 'ink>\n\nAnswer'].map((d) => s.feed(d))
    expect(got.map((g) => g.reasoning).join('')).toBe('plan it')
    expect(withoutThinkBlocks('<think>plan it</think>\n\nAnswer').trim()).toBe('Answer')
    expect(inlineReasoning('<think> a </think>x<reasoning>b</reasoning><think>a</think>')).toBe('a\n\nb')
  })
})
