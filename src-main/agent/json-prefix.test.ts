// Tool-call arguments cut off by an output cap, told from arguments a model wrote wrong (json-prefix.ts).
import { describe, expect, it } from 'vitest'
import { cutOffJson } from './json-prefix'

describe('cutOffJson', () => {
  it('is true for JSON that only lacks its end', () => {
    for (const text of [
      '{',
      '{"command":"echo hel',
      '{"command":"echo hi"',
      '{"command":"echo hi",',
      '{"command":"echo hi", "timeout":',
      '{"command"',
      '{"a":"x\\',
      '{"a":[1, 2, tr',
      '{"a": nul',
      '{"a": -',
      '{"a": 1.',
      '{"a": 1e+',
      '{"a": 12',
      '[{"a":{}}, [',
      '  {"a": {"b": []'
    ])
      expect([text, cutOffJson(text)]).toEqual([text, true])
  })

  it('is false for whole JSON and for JSON written wrong', () => {
    for (const text of [
      '{}',
      '{"command":"echo hi"}',
      '[1, 2]',
      "{'command': 'echo hi'}",
      '{"a":1,}',
      '{"a": None}',
      '{"a": None',
      '{"a": 01',
      '{"a": 1}}',
      '{"a": 1} trailing',
      '{"a" 1',
      '{1: 2',
      '{"a": [1,]',
      '{"a": "tab\tin string"}',
      '{"a": "tab\tin string',
      '{"a": truex',
      ''
    ])
      expect([text, cutOffJson(text)]).toEqual([text, false])
  })
})
