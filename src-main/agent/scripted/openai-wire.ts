/** Writes a scripted reply in the OpenAI chat-completions wire format (SSE stream or one JSON body). */
import type { ServerResponse } from 'node:http'
import { argsText, pieces, resolveUsage, type ScriptReply } from './script'

const sse = (res: ServerResponse, data: unknown) =>
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)

function usageJson(reply: ScriptReply, body: any) {
  const u = resolveUsage(reply, body)
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: {
      cached_tokens: u.cachedTokens,
      ...(u.cacheWriteTokens ? { cache_write_tokens: u.cacheWriteTokens } : {})
    },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens }
  }
}

const finishOf = (reply: ScriptReply) => reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop')
const callId = (i: number, id?: string) => id ?? `call_${i}_${Math.random().toString(36).slice(2, 8)}`

/** Streams the reply; resolves when written (or never ends the response when `stall` is set). */
export function writeOpenAIStream(res: ServerResponse, reply: ScriptReply, body: any): void {
  const model = reply.model ?? body?.model ?? 'scripted'
  const base = {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse(res, { ...base, choices: [{ index: 0, delta, finish_reason: finish }] })
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  chunk({ role: 'assistant', content: '' })
  for (const r of pieces(reply.reasoning ?? '')) chunk({ reasoning_content: r })
  for (const t of reply.deltas ?? pieces(reply.text ?? '')) chunk({ content: t })
  if (reply.malformed === 'bad-json') sse(res, '{"choices": [ {"delta": {"content": "oops"')
  if (reply.malformed === 'bad-choices') sse(res, { ...base, choices: 'not-a-list' })
  ;(reply.toolCalls ?? []).forEach((call, index) => {
    const args = argsText(call)
    const [first = '', ...rest] = pieces(args, 2)
    chunk({
      tool_calls: [
        { index, id: callId(index, call.id), type: 'function', function: { name: call.name, arguments: first } }
      ]
    })
    for (const p of rest) chunk({ tool_calls: [{ index, function: { arguments: p } }] })
  })
  if (reply.stall) return // the connection stays open until the client aborts or the server closes
  chunk({}, finishOf(reply))
  sse(res, { ...base, choices: [], usage: usageJson(reply, body) })
  sse(res, '[DONE]')
  res.end()
}

export function writeOpenAIJson(res: ServerResponse, reply: ScriptReply, body: any): void {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.text ?? (reply.toolCalls?.length ? null : '')
  }
  if (reply.reasoning) message.reasoning_content = reply.reasoning
  if (reply.toolCalls?.length) {
    message.tool_calls = reply.toolCalls.map((c, i) => ({
      id: callId(i, c.id),
      type: 'function',
      function: { name: c.name, arguments: argsText(c) }
    }))
  }
  const payload = {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? body?.model ?? 'scripted',
    choices: [{ index: 0, message, finish_reason: finishOf(reply) }],
    usage: usageJson(reply, body)
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(reply.malformed ? '{"id": "chatcmpl-scripted", "choices": [' : JSON.stringify(payload))
}
