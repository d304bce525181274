/** Writes a scripted reply as an Anthropic Messages SSE stream (`event:` + `data:` pairs). */
import type { ServerResponse } from 'node:http'
import { argsText, pieces, resolveUsage, type ScriptReply } from './script'

export function writeAnthropicStream(res: ServerResponse, reply: ScriptReply, body: any): void {
  const send = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
  const u = resolveUsage(reply, body)
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  send('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_scripted',
      type: 'message',
      role: 'assistant',
      model: reply.model ?? body?.model ?? 'scripted',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: Math.max(0, u.promptTokens - u.cachedTokens - u.cacheWriteTokens),
        cache_read_input_tokens: u.cachedTokens,
        cache_creation_input_tokens: u.cacheWriteTokens,
        output_tokens: 1
      }
    }
  })
  let index = 0
  if (reply.reasoning) {
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' }
    })
    for (const p of pieces(reply.reasoning))
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: p }
      })
    send('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: 'sig-scripted' }
    })
    send('content_block_stop', { type: 'content_block_stop', index: index++ })
  }
  if (reply.text) {
    send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
    for (const p of pieces(reply.text))
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } })
    send('content_block_stop', { type: 'content_block_stop', index: index++ })
  }
  if (reply.malformed === 'bad-json')
    res.write('event: content_block_delta\ndata: {"type": "content_block_delta", "index"\n\n')
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `toolu_${i}_${Math.random().toString(36).slice(2, 8)}`
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id, name: call.name, input: {} }
    })
    for (const p of pieces(argsText(call), 2))
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: p }
      })
    send('content_block_stop', { type: 'content_block_stop', index: index++ })
  }
  if (reply.stall) return
  const stop = reply.toolCalls?.length ? 'tool_use' : 'end_turn'
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: u.completionTokens }
  })
  send('message_stop', { type: 'message_stop' })
  res.end()
}
