/**
 * Text a stranger controls, through what reads every byte of it on the host's one thread: redaction (every event,
 * log line and export), the API server's content reader (every request) and the other readers below. Each input is
 * ~1 MB shaped against one pattern (runs that regexes with unbounded repeats rescan from every start); the worst
 * time is what one such reply, tool result or request would stall the host for. Linear code does 1 MB in tens of
 * milliseconds.
 */
import { readContent, readText } from '../src-main/channels/content'
import { redact } from '../src-main/secrets'
import { extractEntities } from '../src-main/memory/providers/holographic/text'
import { filename } from '../src-main/host/cli/export-md-files'
import { demoResponder } from '../src-main/agent/scripted'
import { overrideFor } from '../src-main/costs/price-overrides'
import { highlightAs } from '../src-renderer/components/markdown/code-highlight'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { Markdown, markdownBody } from '../src-renderer/components/markdown/Markdown'

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

// Other readers of such text on the host's thread, each with its input: a fact the model stores (fact_store add:
// its entity names), an imported session's title (the md export's file name) and base URL (matched against a price
// override), a message to the demo model; on the page's one thread, a code block of a reply or a file a tool read
// (highlighted by language).
const OTHER_INPUTS: Record<string, [(text: string) => unknown, string]> = {
  factEntitiesWords: [extractEntities, fill('a ')],
  factEntitiesOneWord: [extractEntities, fill('a')],
  factEntitiesAkaChain: [extractEntities, fill('a aka ')],
  exportNameDots: [(title) => filename({ id: 's', title }, 'md'), `x${fill('.')}x`],
  demoReplyNewlines: [demoReply, `${fill('\n')}x`],
  priceBaseUrlSlashes: [(url) => overrideFor([OVERRIDE], 'm', url), `${fill('/')}x`],
  codeWordsAsC: [(code) => highlightAs('c', code), fill('a ')],
  // the longest stretch of words the highlight budget lets through (it costs the square of its length)
  codeWordsAsCAtBudget: [(code) => highlightAs('c', code), 'a '.repeat(1_995)],
  codeIdentifierAsTs: [(code) => highlightAs('ts', code), fill('a')],
  codeBlankLinesAsTs: [(code) => highlightAs('ts', code), fill('\n')],
  codeDashesAsIni: [(code) => highlightAs('ini', code), fill('-')]
}
const OVERRIDE = { model: 'm', baseUrl: 'http://x/v1', inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMTok: 0 }

function demoReply(content: string) {
  return demoResponder({
    method: 'POST',
    path: '/v1/chat/completions',
    body: { messages: [{ role: 'user', content }] },
    apiKeyPresent: false
  })
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

/** A reply rendered as the transcript renders it (20 KB: the parser's bad shapes froze the page at that size). */
const KB20 = 20_000
const fill20 = (unit: string) => unit.repeat(Math.ceil(KB20 / unit.length))
const MARKDOWN_INPUTS: Record<string, string> = {
  nestedListItems: fill20('1. '),
  nestedQuotes: fill20('> '),
  closingBrackets: fill20(']'),
  bracketWords: fill20('a]'),
  emphasisMarks: fill20('*_')
}
/**
 * An ordinary reply of about the same size (prose, a list, a table, a fenced block, 120 times, each numbered: the
 * renderer keeps rendered blocks, so repeats would be free): the cost to compare with.
 */
const reply = (tag: string) =>
  Array.from(
    { length: 120 },
    (_, i) =>
      `## Notes ${tag} ${i}\n\nSome *prose* with \`code\` and a [link](https://example.com/${i}).\n\n- one\n- two ${i}\n\n| a | b |\n|---|---|\n| ${i} | 2 |\n\n\`\`\`ts\nconst x = [${i}, 2, 3]\n\`\`\`\n\n`
  ).join('')
const ORDINARY_REPLY = reply('whole')
const renderReply = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }))

/**
 * A reply of that size as it streams in (40 characters a delta): what each delta costs the page, which re-renders the
 * body every time (Markdown.tsx parses only the block still growing; parsed whole, the last deltas cost what
 * ordinaryReplyMs does, and the stream as a whole grew with its square).
 */
function streamedReply(): { deltas: number; totalMs: number; p95DeltaMs: number; worstDeltaMs: number } {
  const text = reply('streamed')
  const times: number[] = []
  for (let end = 40; end < text.length + 40; end += 40) {
    const t = performance.now()
    markdownBody(text.slice(0, end), [], false)
    times.push(performance.now() - t)
  }
  const sorted = [...times].sort((a, b) => a - b)
  const ms = (x: number) => Number(x.toFixed(2))
  return {
    deltas: times.length,
    totalMs: ms(times.reduce((a, b) => a + b, 0)),
    p95DeltaMs: ms(sorted[Math.floor(sorted.length * 0.95)]!),
    worstDeltaMs: ms(sorted.at(-1)!)
  }
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
  const otherMs: Record<string, number> = {}
  for (const [name, [fn, text]] of Object.entries(OTHER_INPUTS)) otherMs[name] = timed(() => fn(text))
  // the highlighter and parser built once, as the app warms them while idle; on other text, so no block of the
  // timed reply is in the renderer's cache
  renderReply(reply('warm-up'))
  const markdownMs: Record<string, number> = {}
  for (const [name, text] of Object.entries(MARKDOWN_INPUTS)) markdownMs[name] = timed(() => renderReply(text))
  const ordinaryReplyMs = timed(() => renderReply(ORDINARY_REPLY))
  const streamed = streamedReply()
  const worstMs = Math.max(
    ...Object.values(redactMs),
    ...Object.values(contentMs),
    ...Object.values(otherMs),
    ...Object.values(markdownMs)
  )
  return { inputBytes: MB, redactMs, contentMs, otherMs, markdownMs, ordinaryReplyMs, streamedReply: streamed, worstMs }
}
