/** What a scripted reply can say, and the bits of a request a responder looks at. */

export interface ScriptedToolCall {
  name: string
  /** Object (JSON-encoded on the wire) or a raw string (lets a test send broken JSON arguments). */
  arguments?: Record<string, unknown> | string
  id?: string
}

export interface ScriptedUsage {
  promptTokens?: number
  completionTokens?: number
  cachedTokens?: number
  cacheWriteTokens?: number
  reasoningTokens?: number
}

export interface ScriptReply {
  text?: string
  /** Stream `text` in exactly these content deltas (their join is the text), e.g. a tag cut across two. */
  deltas?: string[]
  reasoning?: string
  toolCalls?: ScriptedToolCall[]
  usage?: ScriptedUsage
  /** Reply with this HTTP status and an error body instead. */
  error?: number
  errorMessage?: string
  /** Wait this long before answering (lets a test or the watchdog act on an in-flight call). */
  delayMs?: number
  /** Send the content, then hold the stream open without finishing until the client goes away. */
  stall?: boolean
  /** Break the protocol on purpose: a non-JSON SSE chunk, a chunk with a non-list `choices`, or a non-SSE body. */
  malformed?: 'bad-json' | 'bad-choices' | 'garbage'
  finishReason?: string
  model?: string
}

export interface RecordedRequest {
  method: string
  path: string
  /** Parsed JSON body (null when absent or unparsable). */
  body: any
  /** Whether an API key/bearer was sent; the key itself is not recorded. */
  apiKeyPresent: boolean
}

export type ScriptHandler = (req: RecordedRequest) => ScriptReply | Promise<ScriptReply>

/** Rough token count for synthesized usage: ~4 chars per token. */
export const approxTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

/** Splits text into a few streamed pieces (word boundaries kept), so clients see real deltas. */
export function pieces(text: string, n = 3): string[] {
  if (!text) return []
  // Split on code points, never inside a surrogate pair: a lone half is written to the wire as U+FFFD
  // and an emoji (🦩) would arrive as two broken halves.
  const chars = Array.from(text)
  const size = Math.max(1, Math.ceil(chars.length / n))
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}

export function argsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {})
}

export function resolveUsage(reply: ScriptReply, body: any): Required<ScriptedUsage> {
  const promptChars =
    JSON.stringify(body?.messages ?? []).length + (typeof body?.system === 'string' ? body.system.length : 0)
  const outChars =
    (reply.text ?? '').length +
    (reply.reasoning ?? '').length +
    (reply.toolCalls ?? []).reduce((n, c) => n + argsText(c).length + c.name.length, 0)
  const u = reply.usage ?? {}
  return {
    promptTokens: u.promptTokens ?? approxTokens('x'.repeat(promptChars)),
    completionTokens: u.completionTokens ?? approxTokens('x'.repeat(outChars)),
    cachedTokens: u.cachedTokens ?? 0,
    cacheWriteTokens: u.cacheWriteTokens ?? 0,
    reasoningTokens: u.reasoningTokens ?? (reply.reasoning ? approxTokens(reply.reasoning) : 0)
  }
}
