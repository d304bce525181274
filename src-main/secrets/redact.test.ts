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

// Upstream's redact_sensitive_text leaves these identifiers alone (checked with its own code) and masks the keys:
// a vendor prefix only counts with the key characters and length upstream reads, standing alone.
describe('vendor key shapes', () => {
  it('masks keys, keeps identifiers that merely start with a vendor prefix', () => {
    for (const text of [
      'hf_hub_download',
      'npm_config_registry',
      'exa_search_results(',
      'my_hf_model_name',
      'ghr_refresh_cycle_count',
      'r8_model_version_id',
      'tvly-search-results-page',
      'AIzaShortButLongEnough'
    ])
      expect(redact(text)).toBe(text)
    expect(redact('key hf_abcdefghijklmnop end')).toBe('key hf_*** end')
    expect(redact('token npm_ABCDEFGHIJ1234 ok')).toBe('token npm_*** ok')
    expect(redact(`AIza${'x'.repeat(35)}`)).toBe('AIza***')
    expect(redact('SG.abcdefghijklmnop')).toBe('SG.***')
    expect(redact('xapp-1-ABCDEFGHIJKLMN')).toBe('xapp-1-***')
    expect(redact(`xai-${'a1'.repeat(16)}`)).toBe('xai-***')
  })
})

// The shapes whose patterns were bounded so a long hostile text costs one pass (bench: npm run bench -- --only text)
// still mask what they masked.
describe('bounded patterns', () => {
  it('a private key block with PEM headers, a DSN password, a secret-named variable', () => {
    const pem =
      '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----'
    expect(redact(`key: ${pem} done`)).toBe('key: [private key] done')
    // a BEGIN without its END masks nothing and does not swallow the next block
    expect(redact(`-----BEGIN PRIVATE KEY----- stray\n${pem}`)).toBe('-----BEGIN PRIVATE KEY----- stray\n[private key]')
    expect(redact('postgres://app:s3cr3t-Pa55@db.internal:5432/x')).toBe('postgres://app:***@db.internal:5432/x')
    expect(redact('MY_SERVICE_API_KEY = hunter2hunter2')).toBe('MY_SERVICE_API_KEY = ***')
  })
})

describe('JWT-shaped tokens', () => {
  it('masks a token wherever a word boundary starts it, inside dash-joined words too', () => {
    const jwt = 'eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl'
    expect(redact(`token ${jwt} ok`)).toBe('token eyJ*** ok')
    // `-` is a word boundary: a token after it is masked, and a first segment that itself holds `-eyJ` is masked whole
    expect(redact(`x-${jwt}`)).toBe('x-eyJ***')
    expect(redact(`eyJabc-eyJdef-${jwt}`)).toBe('eyJ***')
    // a run of `eyJ-` without the dots masks nothing
    expect(redact('eyJ-'.repeat(50))).toBe('eyJ-'.repeat(50))
  })
})

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

// Credential shapes whose value is no known secret (another service's key echoed back, a header dumped as JSON or a
// Python dict, a base URL behind basic auth): the shape alone must mask them.
describe('credential shapes of unknown values', () => {
  const v = 'Zq8vR2mXk4Lp9TnW3yBc'
  it('masks query parameters, header assignments, JSON and Python-dict fields, URL passwords', () => {
    for (const text of [
      `GET https://api.example.com/v1/models?apikey=${v}`,
      `GET https://api.example.com/v1/models?x=1&api-key=${v}#top`,
      `GET https://api.example.com/v1?client_secret=${v}`,
      `X-Api-Key=${v}`,
      `{"headers":{"x-api-key":"${v}"}}`,
      `{"api-key": "${v}"}`,
      `{"authorization": "${v}"}`,
      `{"client_secret": "${v}"}`,
      `{"private_key": "${v}"}`,
      `{'api_key': '${v}'}`,
      `{'Authorization': 'Basic ${v}'}`,
      `https://user:${v}@host.example.com/v1`,
      `could not reach http://proxy-user:${v}@127.0.0.1:8080/v1/chat/completions`
    ]) {
      const out = redact(text)
      expect(out, text).not.toContain(v)
      expect(out, text).toContain('***')
    }
    expect(redact(`https://user:${v}@host.example.com/v1`)).toBe('https://user:***@host.example.com/v1')
    expect(redact(`{'api_key': '${v}', 'model': 'm'}`)).toBe(`{'api_key': '***', 'model': 'm'}`)
  })

  it('keeps what only looks near a credential: ports, paths with @, other fields and parameters', () => {
    for (const text of [
      'http://localhost:8080/v1',
      'https://host.example.com:443/users/@me',
      'GET https://x.com/search?keyword=cats&monkey=1',
      '{"authorization_url": "https://auth.example.com/authorize"}',
      "{'model': 'gpt-4o', 'max_tokens': 512}",
      'x-api-key header missing'
    ])
      expect(redact(text)).toBe(text)
  })
})
