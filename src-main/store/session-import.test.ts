// Import parsing yields to the event loop while it reads a 10 MB file (slices of a few ms; the stall itself is
// measured in the bench, not asserted here on a shared machine) and rejects bad lines by number.
import { describe, expect, it } from 'vitest'
import { parseJsonlChunked } from './session-import'

describe('parseJsonlChunked', () => {
  it('parses a 10 MB file in slices that let the event loop turn in between', async () => {
    const body = 'x'.repeat(5000)
    const line = (i: number) =>
      JSON.stringify({ id: `s${i}`, source: 'cli', messages: [{ role: 'user', content: `${i} ${body}` }] })
    const content = Array.from({ length: 2000 }, (_, i) => line(i)).join('\n') + '\n{oops\n'
    expect(content.length).toBeGreaterThan(10_000_000)
    // a self-renewing setImmediate counts event-loop turns the parser let through
    let ticks = 0
    let on = true
    const turn = () => {
      ticks++
      if (on) setImmediate(turn)
    }
    setImmediate(turn)
    const parsed = await parseJsonlChunked(content, 10_000)
    on = false
    expect(parsed.records).toHaveLength(2000)
    expect(parsed.records[1999]!.line).toBe(2000)
    expect(parsed.errors).toEqual([{ id: 'line 2001', line: 2001, reason: expect.stringContaining('invalid JSON') }])
    expect(ticks).toBeGreaterThan(0) // without a yield the loop never turns before the parse resolves
  })
})
