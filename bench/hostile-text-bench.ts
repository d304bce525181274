/**
 * Text a stranger controls, through what reads every byte of it on the host's one thread: redaction (every event,
 * log line and export), the API server's content reader (every request) and a stored fact's entity names. Each
 * input is ~1 MB shaped against one pattern (runs that regexes with unbounded repeats rescan from every start); the
 * worst time is what one such reply, tool result or request would stall the host for. Linear code does 1 MB in tens of milliseconds.
 */
import { readContent, readText } from '../src-main/channels/content'
import { redact } from '../src-main/secrets'
import { extractEntities } from '../src-main/memory/providers/holographic/text'

const MB = 1_000_000
const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length))

const REDACT_INPUTS: Record<string, string> = {
  letters: fill('a'),
  digits: fill('1'),
  envKeywordWord: fill('API_KEY'),
  envKeywordSpaced: fill('API_KEY '),
  providerPrefix: fill('sk-'),
  vendorPrefix: fill('hf_'),
  dsnWithoutAt: fill('postgres://a:'),
  urlUserinfo: fill('https://aaaaaaaaa'),
  privateKeyBegins: fill('-----BEGIN PRIVATE KEY-----\n'),
  authHeaders: fill('Authorization: '),
  telegram: fill('bot1111111111:'),
  jwtParts: fill('eyJaaaaaa.'),
  // `-` is a word boundary inside a base64url run: a JWT start every 4 characters
  jwtDashed: fill('eyJ-')
}

// A fact the model stores (fact_store add): its entity names are read on the host's thread before the insert.
const ENTITY_INPUTS: Record<string, string> = {
  words: fill('a '),
  oneWord: fill('a'),
  akaChain: fill('a aka ')
}

const CONTENT_INPUTS: Record<string, unknown> = {
  paddedPartType: [{ type: `text${' '.repeat(MB)}x`, text: 'hi' }],
  paddedImageUrl: [{ type: 'image_url', image_url: { url: `${' '.repeat(MB)}https://x/y.png${' '.repeat(MB)}` } }],
  manyParts: Array.from({ length: 1_000 }, () => ({ type: 'text', text: 'x'.repeat(1_000) }))
}

function timed(fn: () => unknown): number {
  const t = performance.now()
  fn()
  return Number((performance.now() - t).toFixed(1))
}

export function runHostileTextBench() {
  const redactMs: Record<string, number> = {}
  for (const [name, text] of Object.entries(REDACT_INPUTS)) redactMs[name] = timed(() => redact(text))
  const contentMs: Record<string, number> = {}
  for (const [name, content] of Object.entries(CONTENT_INPUTS))
    contentMs[name] = timed(() => {
      try {
        readContent(content, 'messages[0].content')
      } catch {
        // a refusal is an answer too: what counts is how long it took
      }
      readText(content)
    })
  const entitiesMs: Record<string, number> = {}
  for (const [name, text] of Object.entries(ENTITY_INPUTS)) entitiesMs[name] = timed(() => extractEntities(text))
  const worstMs = Math.max(...Object.values(redactMs), ...Object.values(contentMs), ...Object.values(entitiesMs))
  return { inputBytes: MB, redactMs, contentMs, entitiesMs, worstMs }
}
