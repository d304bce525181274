import { describe, expect, it } from 'vitest'
import { redact } from './redact'

// Each checked against upstream's redact_sensitive_text (agent/redact.py, _PREFIX_RE):
// key shapes upstream masks that pass here, and identifiers upstream leaves alone that are masked here.
describe('redaction against upstream', () => {
  it('masks the key shapes upstream masks (Firecrawl fc-, ElevenLabs sk_, AgentMail am_, Codex gAAAA)', () => {
    for (const key of [
      'fc-0123456789abcdef',
      'sk_0123456789abcdef',
      'am_0123456789abcdef',
      'gAAAAB0123456789abcdefghij'
    ])
      expect(redact(`key ${key} end`)).not.toContain(key)
  })

  it('keeps identifiers upstream keeps (GitHub-prefixed names with underscores, pk-/rk- words, short AKIA)', () => {
    for (const text of ['gho_something_else_here', 'ghp_config_value_x', 'rk-3588-development', 'AKIA0123456789AB'])
      expect(redact(text)).toBe(text)
  })
})
