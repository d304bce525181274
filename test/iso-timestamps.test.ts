import { describe, expect, it } from 'vitest'
import { isoUtc } from '@shared/contract/py-text'
import golden from './fixtures/upstream/agent-loop/golden.json'

describe('isoUtc', () => {
  // Upstream's Markdown export (hermes_cli/session_export_md.py) over the timestamps its own agent loop stored.
  it("writes each stored timestamp to the microsecond as upstream's export does", () => {
    const got = golden.iso_timestamps.map(([t]) => [t, isoUtc(t)])
    expect(got).toEqual(golden.iso_timestamps)
  })

  // the values Python's datetime.fromtimestamp(t, tz=timezone.utc).isoformat() gives
  it('rounds the exact fraction half to even, and a rounded-up second carries', () => {
    expect(isoUtc(2.5e-6)).toBe('1970-01-01T00:00:00.000002Z')
    expect(isoUtc(3.5e-6)).toBe('1970-01-01T00:00:00.000004Z')
    expect(isoUtc(1.0000015)).toBe('1970-01-01T00:00:01.000001Z')
    expect(isoUtc(1796525751.8778105)).toBe('2026-12-06T02:55:51.877810Z')
    expect(isoUtc(1796525751.9999995)).toBe('2026-12-06T02:55:52Z')
    expect(isoUtc(5.9999999)).toBe('1970-01-01T00:00:06Z')
    expect(isoUtc(5.9999999, true)).toBe('1970-01-01T00:00:06Z')
    expect(isoUtc(5.25, true)).toBe('1970-01-01T00:00:05Z')
  })
})
