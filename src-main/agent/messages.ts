/** Conversions between in-memory messages, the store's NewMessage, and tool-call shapes. */
import { storedPartsText } from '@shared/contract'
import type { ConversationMessage, NewMessage } from '../store'
import type { AgentMessage, ProviderResponse, ThinkingBlock } from './providers/types'
import type { ToolCallRequest, ToolCallResult } from './tools/registry'
import type { AgentStore } from './types'

export function assistantMessage(
  resp: Pick<ProviderResponse, 'text' | 'reasoning' | 'toolCalls' | 'thinkingBlocks'>
): AgentMessage {
  const msg: AgentMessage = { role: 'assistant', content: resp.text || (resp.toolCalls.length ? null : '') }
  if (resp.toolCalls.length) {
    msg.tool_calls = resp.toolCalls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments }
    }))
    msg.modelCalls = true
  }
  if (resp.reasoning) msg.reasoning = resp.reasoning
  if (resp.thinkingBlocks?.length) msg.reasoning_details = resp.thinkingBlocks
  return msg
}

export function toolResultMessage(result: ToolCallResult): AgentMessage {
  return { role: 'tool', content: result.content, tool_call_id: result.id, name: result.name }
}

/**
 * The persisted row for an in-memory message, as upstream's agent flush writes it: a message with images stores
 * its text with each image as "[screenshot]" (the images were sent, not stored); an assistant tool-call row
 * without text stores '' ; reasoning (and `reasoning_content`, `reasoning_details`) only on assistant rows.
 */
export function toNewMessage(msg: AgentMessage, extra: Partial<NewMessage> = {}): NewMessage {
  const assistant = msg.role === 'assistant'
  const calls = msg.tool_calls?.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }))
  const reasoning = assistant ? (msg.reasoning ?? null) : null
  return {
    role: msg.role,
    content: msg.parts?.length
      ? storedPartsText(msg.parts)
      : assistant && calls?.length
        ? (msg.content ?? '')
        : msg.content,
    toolCalls: calls ?? null,
    toolCallId: msg.tool_call_id ?? null,
    toolName: msg.role === 'tool' ? (msg.name ?? null) : null,
    finishReason: msg.finish_reason ?? null,
    reasoning,
    // Upstream promotes the reasoning it captured to reasoning_content whenever there is any.
    reasoningContent: reasoning || null,
    reasoningDetails: assistant && msg.reasoning_details?.length ? msg.reasoning_details.map((b) => ({ ...b })) : null,
    // A message already stored (restored, or saved earlier) written again, as into a compression continuation: the
    // copy keeps its identity, as upstream's copies do.
    ...(msg.identity ? { identity: msg.identity } : {}),
    // a stored summary copied on (an earlier one in a continuation's kept tail) stays flagged as one
    ...(msg.compressedSummary ? { compressedSummary: true as const } : {}),
    ...(assistant && msg.modelCalls && calls?.length ? { modelCalls: true as const } : {}),
    ...extra
  }
}

/**
 * Appends the in-memory message and gives it the identity its row was written with (a v31 home), as upstream's flush
 * stamps its message dict: a later copy of the message (the next compression's continuation) keeps that identity.
 */
export async function appendStamped(
  store: Pick<AgentStore, 'appendMessage'>,
  sessionId: string,
  msg: AgentMessage,
  extra: Partial<NewMessage> = {}
): Promise<number> {
  const row = toNewMessage(msg, extra)
  const id = await store.appendMessage(sessionId, row)
  const uids = row.identity
  if (uids?.messageUid) msg.identity = { ...uids, messageUid: uids.messageUid }
  return id
}

export function callsOf(msg: AgentMessage): ToolCallRequest[] {
  return (msg.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }))
}

/**
 * History loaded from a store or handed in by a caller: keep only well-formed messages, and drop tool
 * results whose call is missing (a provider rejects an orphan `tool` message outright).
 */
export function sanitizeHistory(history: ConversationMessage[] | null | undefined): AgentMessage[] {
  const out: AgentMessage[] = []
  const openCalls = new Set<string>()
  for (const m of Array.isArray(history) ? history : []) {
    if (!m || typeof m !== 'object' || !['system', 'user', 'assistant', 'tool'].includes(m.role)) continue
    if (m.role === 'system') continue // the agent supplies its own system prompt
    if (m.role === 'tool') {
      if (!m.tool_call_id || !openCalls.has(m.tool_call_id)) continue
      openCalls.delete(m.tool_call_id)
    }
    const { reasoning_details: stored, ...rest } = m
    const copy: AgentMessage = {
      ...rest,
      content: typeof m.content === 'string' ? m.content : m.content == null ? null : JSON.stringify(m.content)
    }
    // Stored `reasoning_details` (ours or upstream's) carry Anthropic thinking blocks with their signatures; only
    // those are kept, cleaned to the fields a request takes (other providers' reasoning entries are dropped).
    const thinking = m.role === 'assistant' ? thinkingBlocksOf(stored) : []
    if (thinking.length) copy.reasoning_details = thinking
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      copy.tool_calls = m.tool_calls.filter((c) => c && c.id && c.function && typeof c.function.name === 'string')
      if (!copy.tool_calls.length) delete copy.tool_calls
      for (const c of copy.tool_calls ?? []) openCalls.add(c.id)
    }
    out.push(copy)
  }
  return closeDanglingCalls(out)
}

/** The thinking / redacted_thinking blocks among stored `reasoning_details`, as a request sends them back. */
function thinkingBlocksOf(details: unknown): ThinkingBlock[] {
  const out: ThinkingBlock[] = []
  for (const d of Array.isArray(details) ? (details as Array<Record<string, unknown>>) : []) {
    if (d?.type === 'thinking' && typeof d.thinking === 'string')
      out.push({
        type: 'thinking',
        thinking: d.thinking,
        ...(typeof d.signature === 'string' && d.signature ? { signature: d.signature } : {})
      })
    else if (d?.type === 'redacted_thinking' && typeof d.data === 'string' && d.data)
      out.push({ type: 'redacted_thinking', data: d.data })
  }
  return out
}

/** An assistant tool call without a result (a crash mid-tool) gets a synthetic one so the history stays valid. */
export function closeDanglingCalls(messages: AgentMessage[]): AgentMessage[] {
  const out: AgentMessage[] = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    out.push(m)
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue
    const answered = new Set<string>()
    for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++)
      answered.add(messages[j]!.tool_call_id ?? '')
    const missing = m.tool_calls.filter((c) => !answered.has(c.id))
    // Results come right after the call; insert missing ones after the existing results.
    let k = i + 1
    while (k < messages.length && messages[k]!.role === 'tool') out.push(messages[k++]!)
    for (const c of missing)
      out.push({
        role: 'tool',
        content: JSON.stringify({ error: 'tool call did not complete' }),
        tool_call_id: c.id,
        name: c.function.name
      })
    i = k - 1
  }
  return out
}

/** Rough prompt size: ~4 characters per token plus a small per-message overhead. */
export function estimateTokens(messages: AgentMessage[], extraChars = 0): number {
  let chars = extraChars
  for (const m of messages) {
    chars += (m.content ?? '').length + 16
    for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length + 16
  }
  return Math.ceil(chars / 4)
}
