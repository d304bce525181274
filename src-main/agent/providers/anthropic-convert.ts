/**
 * OpenAI-style conversation → Anthropic Messages request parts. Anthropic wants: system prompt at top
 * level, strictly alternating user/assistant turns, tool calls as `tool_use` blocks and their results as
 * `tool_result` blocks inside the next user turn.
 */
import { createHash } from 'node:crypto'
import type { AgentMessage, ContentPart, ReasoningConfig, ToolSchema } from './types'
import { parseJsonOr } from '@shared/contract/errors'

type Block = Record<string, unknown>
export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: Block[]
}

export function toAnthropicTools(
  tools: ToolSchema[] | undefined
): Array<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  return (tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    // input_schema must be an object schema; tools declared without parameters get an empty one.
    input_schema:
      t.function.parameters && typeof t.function.parameters === 'object'
        ? { type: 'object', ...t.function.parameters }
        : { type: 'object', properties: {} }
  }))
}

/**
 * Whether a base URL is Anthropic's own API, by upstream's rule: "anthropic.com" anywhere in it (or no URL at all).
 * Thinking signatures are Anthropic's: a third-party endpoint speaking its protocol (MiniMax, Bedrock, Foundry, a
 * proxy) cannot check them and refuses a request that carries them.
 */
export const isDirectAnthropic = (baseUrl: string | null | undefined): boolean =>
  !baseUrl?.trim() || baseUrl.toLowerCase().includes('anthropic.com')

export function toAnthropicMessages(
  messages: AgentMessage[],
  opts: { signedThinking?: boolean } = {}
): { system: string; messages: AnthropicMessage[] } {
  const signedThinking = opts.signedThinking ?? true
  const system: string[] = []
  const out: AnthropicMessage[] = []
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (!blocks.length) return
    const last = out[out.length - 1]
    // Consecutive same-role turns (e.g. a compression summary followed by a user message) are merged.
    if (last && last.role === role) last.content.push(...blocks)
    else out.push({ role, content: blocks })
  }
  // Signed thinking goes back on the latest assistant message only (what Anthropic checks; upstream strips it from
  // earlier ones too), with its signature, or redacted_thinking with its data, untouched — and never to a third-party
  // endpoint (isDirectAnthropic), as upstream sends none there.
  const latestAssistant = messages.findLastIndex((m) => m.role === 'assistant')
  for (const [i, m] of messages.entries()) {
    if (m.role === 'system') {
      if (m.content) system.push(m.content)
    } else if (m.role === 'user') {
      push(
        'user',
        m.parts?.length ? m.parts.map(toAnthropicPart) : m.content ? [{ type: 'text', text: m.content }] : []
      )
    } else if (m.role === 'tool') {
      push('user', [
        { type: 'tool_result', tool_use_id: anthropicToolId(m.tool_call_id ?? ''), content: m.content ?? '' }
      ])
    } else if (m.role === 'assistant') {
      const blocks: Block[] = []
      if (signedThinking && i === latestAssistant)
        for (const t of m.reasoning_details ?? []) if (t.signature || t.data) blocks.push({ ...t })
      if (m.content) blocks.push({ type: 'text', text: m.content })
      for (const tc of m.tool_calls ?? [])
        blocks.push({
          type: 'tool_use',
          id: anthropicToolId(tc.id),
          name: tc.function.name,
          input: parseArgs(tc.function.arguments)
        })
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: '(no content)' }])
    }
  }
  // The API rejects a conversation that starts with the assistant.
  if (out[0]?.role === 'assistant')
    out.unshift({ role: 'user', content: [{ type: 'text', text: '(conversation continues)' }] })
  return { system: system.join('\n\n'), messages: out }
}

/**
 * A tool-call id Anthropic accepts (`^[a-zA-Z0-9_-]+$`). Ids minted by other providers in earlier turns (Kimi's
 * `functions.get_weather:0`) are rewritten: the bad characters become `_` and a short hash of the original id is
 * appended, so a call and its result still match and two ids that differ only in those characters stay apart.
 */
function anthropicToolId(id: string): string {
  if (/^[a-zA-Z0-9_-]+$/.test(id)) return id
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 10)
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 48)}_${hash}`
}

/** OpenAI's `image_url` part → Anthropic's image block (a data: URL becomes a base64 source, else a url source). */
function toAnthropicPart(p: ContentPart): Block {
  if (p.type === 'text') return { type: 'text', text: p.text }
  const url = p.image_url.url
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return data
    ? { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
    : { type: 'image', source: { type: 'url', url } }
}

function parseArgs(raw: string): unknown {
  const v = raw.trim() ? parseJsonOr(raw, undefined) : {}
  if (v === undefined) return { _raw: raw } // not JSON: passed on as written
  return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }
}

const BUDGET: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32000 }

/** `thinking` request param, or null when reasoning is off/unspecified. */
export function thinkingParam(
  cfg: ReasoningConfig | null | undefined
): { type: 'enabled'; budget_tokens: number } | null {
  if (!cfg || cfg.enabled === false || cfg.effort === 'none') return null
  if (cfg.enabled !== true && !cfg.effort && !cfg.budgetTokens) return null
  const budget = cfg.budgetTokens ?? BUDGET[cfg.effort ?? 'medium'] ?? 8192
  return { type: 'enabled', budget_tokens: Math.max(1024, Math.floor(budget)) }
}
