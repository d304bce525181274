// The session ids a caller may name: upstream's rule (test/fixtures/upstream/api-server-http, chat_session_header_*),
// replayed over HTTP in test/api-server-upstream-http.test.ts; here the parts of it no golden request can show.
import { describe, expect, it } from 'vitest'
import { memoryKeyHeader, sessionHeader, sessionIdOf } from './context'

/** A header as node hands it over: the bytes the client sent, one character each. */
const asReceived = (text: string) => Buffer.from(text, 'utf8').toString('latin1')
const refused = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return (e as Error).message
  }
  return 'accepted'
}

describe('session ids', () => {
  it('reads the header as UTF-8 text and counts code points, as upstream does', () => {
    expect(sessionHeader(asReceived('café 東京'))).toBe('café 東京')
    expect(sessionHeader(asReceived('🚀'.repeat(256)))).toBe('🚀'.repeat(256))
    expect(refused(() => sessionHeader(asReceived('🚀'.repeat(257))))).toBe('Session ID too long')
    // Python's strip(): an ideographic space is whitespace
    expect(sessionHeader(asReceived('\u3000abc\u3000'))).toBe('abc')
    expect(sessionHeader(asReceived('   '))).toBeUndefined()
  })

  it('refuses what could leave the sessions folder as a file name', () => {
    for (const id of ['..', 'a..b', 'a/b', 'a\\b', 'C:', 'a:b', 'é:x'])
      expect(
        refused(() => sessionIdOf(id)),
        id
      ).toBe('Invalid session ID')
    for (const id of ['ab:c', '1:x', '.', '~user', 'my session', '$(id)', 'a\tb']) expect(sessionIdOf(id)).toBe(id)
  })

  // Deliberately narrower than upstream (which refuses only CR, LF and NUL): ids are written into log lines.
  it('refuses control characters and Unicode line breaks', () => {
    for (const id of ['a\rb', 'a\x1b[31m', 'a\x00', 'a\u0085b', 'a\u2028b', 'a\u2029b', 'a\x7f'])
      expect(
        refused(() => sessionIdOf(id)),
        JSON.stringify(id)
      ).toBe('Invalid session ID')
    expect(refused(() => memoryKeyHeader(asReceived('key\u2028x')))).toBe('Invalid session key')
    expect(memoryKeyHeader(asReceived('agent:main:webui:dm:Zoë'))).toBe('agent:main:webui:dm:Zoë')
  })

  // Upstream (aiohttp) reads each such byte as an escape that its header writer then drops: `abc\xff\xfedef` is run
  // and answered as session `abcdef` (api-upstream-parity.test.ts over HTTP). Each byte still counts toward
  // the 256 bound, as upstream counts its escapes.
  it('drops bytes that are not UTF-8, as upstream answers them, and counts them toward the bound', () => {
    expect(sessionHeader('caf\xe9')).toBe('caf')
    expect(sessionHeader('sess-\xe9t\xe9')).toBe('sess-t')
    expect(sessionHeader('abc\xff\xfedef')).toBe('abcdef')
    // ill-formed sequences: overlong, a UTF-16 surrogate, past U+10FFFF, cut short; well-formed ones kept
    expect(sessionHeader('a\xc0\xafb\xed\xa0\x80c\xf4\x90\x80\x80d\xe2\x82')).toBe('abcd')
    expect(sessionHeader(asReceived('é\u{10ffff}\ufffd'))).toBe('é\u{10ffff}\ufffd')
    expect(sessionHeader('a'.repeat(250) + '\xff'.repeat(6))).toBe('a'.repeat(250))
    expect(refused(() => sessionHeader('a'.repeat(250) + '\xff'.repeat(7)))).toBe('Session ID too long')
    expect(memoryKeyHeader('key-\xff1')).toBe('key-1')
    expect(refused(() => memoryKeyHeader('k'.repeat(256) + '\xff'))).toBe('Session key too long')
  })

  // A header that was sent but holds nothing usable is refused, not read as absent (which would start or pick another
  // session, or run in unscoped memory); a header of whitespace alone stays absent, as upstream strips it.
  it('refuses a header made only of bytes that are not UTF-8', () => {
    for (const v of ['\x80', '\xff\xfe', ' \xe9 ', '\xed\xa0\x80'])
      expect(
        refused(() => sessionHeader(v)),
        JSON.stringify(v)
      ).toBe('Invalid session ID: X-Hermes-Session-Id holds no UTF-8 text')
    expect(refused(() => memoryKeyHeader('\xe9\xff'))).toBe(
      'Invalid session key: X-Hermes-Session-Key holds no UTF-8 text'
    )
    expect(sessionHeader(undefined)).toBeUndefined()
    expect(memoryKeyHeader(' ')).toBeUndefined()
  })
})
