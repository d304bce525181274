/**
 * The text kept of a reply stopped mid-stream: what the user was shown of it, without reasoning blocks, as upstream
 * keeps it (its streamed text has them scrubbed, and its stop path strips them again before saving the row), so the
 * next turn's history does not carry the model's private reasoning as something it said.
 * Golden: test/fixtures/upstream/stopped-reply-text (scripts/golden/stopped_reply_text.py).
 */
const NAMES = 'think|thinking|reasoning|thought|REASONING_SCRATCHPAD'
const TAGS = NAMES.split('|').flatMap((n) => [`<${n}>`, `</${n}>`].map((t) => t.toLowerCase()))
const PAIRS = NAMES.split('|').map((n) => new RegExp(`<${n}>.*?</${n}>`, 'gsi'))
const TOOL_XML = ['tool_call', 'tool_calls', 'tool_result', 'function_call', 'function_calls'].map(
  (n) => new RegExp(`<${n}\\b[^>]*>.*?</${n}>`, 'gsi')
)
/** A Gemma-style `<function name=…>` call, only where a block starts (so prose naming `<function>` stays). */
const FUNCTION_CALL =
  /(?:(?<=^)|(?<=[\n\r.!?:]))[ \t]*<function\b[^>]*\bname\s*=[^>]*>(?:(?:(?!<\/function>).)*)<\/function>/gis
/** A reasoning block opened at the start of a line and never closed (cut by the stop): it runs to the end. */
const UNCLOSED = new RegExp(`(?:^|\\n)[ \\t]*<(?:${NAMES})\\b[^>]*>.*$`, 'si')
const STRAY = new RegExp(`</?(?:${NAMES})>\\s*`, 'gi')
const STRAY_TOOL_CLOSE = /<\/(?:tool_call|tool_calls|tool_result|function_call|function_calls|function)>\s*/gi

/** A cut that ends in what may be the beginning of a tag (`<`, `<thi`) was held back from the user: drop it. */
function withoutPartialTag(text: string): string {
  const lower = text.toLowerCase()
  for (let n = Math.min(text.length, Math.max(...TAGS.map((t) => t.length)) - 1); n > 0; n--) {
    const tail = lower.slice(-n)
    if (TAGS.some((t) => t.length > n && t.startsWith(tail))) return text.slice(0, -n)
  }
  return text
}

export function stoppedReplyText(streamed: string): string {
  let text = withoutPartialTag(streamed)
  for (const re of PAIRS) text = text.replace(re, '')
  for (const re of TOOL_XML) text = text.replace(re, '')
  text = text.replace(FUNCTION_CALL, '').replace(UNCLOSED, '').replace(STRAY, '').replace(STRAY_TOOL_CLOSE, '')
  return text.trim()
}
