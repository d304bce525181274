import { describe, expect, it } from 'vitest'
import { redact, redactValues } from './redact'

describe('redact', () => {
  it('masks key-shaped strings', () => {
    const out = redact(
      'key sk-or-v1-abcdef123456 and Bearer abcdefghijk and OPENAI_API_KEY=plainvalue1 url?token=zzz123'
    )
    expect(out).not.toMatch(/abcdef123456|abcdefghijk|plainvalue1|zzz123/)
    expect(out).toContain('sk-***')
  })
  it('masks known values verbatim', () => {
    expect(redactValues('the key is weird-key-format', ['weird-key-format'])).toBe('the key is ***')
  })
})
