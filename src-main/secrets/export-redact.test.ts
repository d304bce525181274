import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { redactForExport } from './export-redact'
import { redact, SecretMask } from './redact'

// A host's mask that knows no secret value yet: only upstream's rules apply.
const none = new SecretMask()

// scripts/golden/export_redact.py: each string through upstream's own `--redact` (redact_session_data).
const G = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/export-redact/cases.json'), 'utf8')
) as { upstreamCommit: string; cases: Array<[string, string]>; record: [unknown, unknown] }

describe("an export's redaction follows upstream's --redact", () => {
  it('writes what upstream writes, input by input', () => {
    expect(G.cases.length).toBeGreaterThan(100)
    // (no secret value is known to this process yet: only upstream's rules apply)
    const differ = G.cases
      .filter(([input, want]) => redactForExport(input, none) !== want)
      .map(([input, want]) => ({ input, want, got: redactForExport(input, none) }))
    expect(differ).toEqual([])
  })

  it('masks every string of messages and segments, keys and other values untouched', () => {
    const [input, want] = G.record as [Record<string, unknown>, Record<string, unknown>]
    for (const k of ['messages', 'segments']) expect(redactForExport(input[k], none)).toEqual(want[k])
  })

  it('masks a secret value the host knows when upstream would leave it', () => {
    const key = 'opaque key with spaces 4242'
    const mask = new SecretMask()
    mask.remember([key])
    expect(redactForExport({ c: `password: "${key}"` }, mask)).toEqual({ c: 'password: "***"' })
    // another host's mask does not hold it
    expect(redactForExport({ c: `password: "${key}"` }, none)).toEqual({ c: `password: "${key}"` })
    mask.close()
    // the log's redaction is its own pass, unchanged
    expect(redact('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789')).toBe('sk-***')
  })
})
