/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, Ollama, vLLM, LM Studio, …) through the
 * official `openai` SDK, streamed. Reasoning arrives as `reasoning_content` (DeepSeek, vLLM) or
 * `reasoning` (OpenRouter, Ollama); usage comes in the final chunk (`stream_options.include_usage`).
 */
// Type-only at load: the SDK is imported on the first call, so starting the CLI/host doesn't pay ~1 s for it.
import type OpenAI from 'openai'
import { cutOffJson } from '../json-prefix'
import { runtimeCallLimits, watchedCall, type CallWatch } from './call-limits'
import { toProviderError } from './errors'
import { ToolCallAssembler } from './tool-call-assembler'
import { splitUrlCredentials } from './url-auth'
import {
  count,
  cutOffStream,
  ProviderError,
  type AgentMessage,
  type ChatRequest,
  type NormalizedUsage,
  type ProviderClient,
  type ReasoningConfig,
  type RuntimeConfig,
  type StreamEvent
} from './types'

export function createOpenAICompatClient(runtime: RuntimeConfig): ProviderClient {
  const limits = runtimeCallLimits(runtime)
  // Userinfo in the base URL becomes Basic auth, which replaces the Bearer key (the SDK's default headers win).
  const target = splitUrlCredentials(runtime.baseUrl)
  // One SDK per call (watchedCall): its `fetch` is that call's watch.
  const sdkFor = async (watch: CallWatch): Promise<OpenAI> =>
    new (await import('openai')).default({
      // Explicit key always: the SDK would otherwise fall back to process.env.OPENAI_API_KEY, which
      // bypasses the profile's secret scope. Local servers accept any placeholder.
      apiKey: runtime.apiKey || 'no-key',
      baseURL: target.url,
      defaultHeaders: target.headers,
      maxRetries: 0,
      timeout: runtime.timeoutMs,
      fetch: watch.fetch as never,
      logLevel: 'off',
      organization: null,
      project: null
    })
  return {
    apiMode: 'chat_completions',
    stream: (req, signal) =>
      watchedCall(limits, signal, sdkFor, (sdk, watch) => streamChatWatched(sdk, watch, runtime, req, signal))
  }
}

async function* streamChatWatched(
  sdk: OpenAI,
  watch: CallWatch,
  runtime: RuntimeConfig,
  req: ChatRequest,
  signal?: AbortSignal
): AsyncGenerator<StreamEvent> {
  const body: Record<string, unknown> = {
    model: req.model,
    messages: alternating(req.messages.map(toWire)),
    stream: true,
    stream_options: { include_usage: true },
    ...reasoningParams(runtime.provider, req.reasoning)
  }
  if (req.tools?.length) body.tools = req.tools
  if (req.maxTokens) body.max_tokens = req.maxTokens
  const assembler = new ToolCallAssembler(watch.limits.maxToolArgsChars)
  let text = ''
  let reasoning = ''
  let finishReason: string | null = null
  let usage: NormalizedUsage | null = null
  let model: string | null = null
  let opened = false
  try {
    const stream = (await sdk.chat.completions.create(body as never, {
      signal: watch.signal
    })) as unknown as AsyncIterable<unknown>
    opened = true
    for await (const raw of stream) {
      if (!raw || typeof raw !== 'object')
        throw new ProviderError('malformed', 'malformed provider reply: stream chunk is not an object')
      const chunk = raw as { model?: unknown; choices?: unknown; usage?: unknown; error?: unknown }
      if (chunk.error)
        throw new ProviderError('http', `provider reported an error mid-stream: ${describe(chunk.error)}`)
      if (typeof chunk.model === 'string' && chunk.model) model = chunk.model
      if (chunk.usage && typeof chunk.usage === 'object') usage = normalizeOpenAIUsage(chunk.usage)
      if (chunk.choices === undefined || chunk.choices === null) continue
      if (!Array.isArray(chunk.choices))
        throw new ProviderError('malformed', 'malformed provider reply: `choices` is not a list')
      for (const choice of chunk.choices as Array<Record<string, unknown>>) {
        const delta = (choice?.delta ?? {}) as Record<string, unknown>
        // Some servers send both fields with one of them empty (`reasoning_content: ""` beside `reasoning`).
        const r =
          typeof delta.reasoning_content === 'string' && delta.reasoning_content
            ? delta.reasoning_content
            : typeof delta.reasoning === 'string'
              ? delta.reasoning
              : ''
        if (r) {
          reasoning += r
          yield { type: 'reasoning', text: r }
        }
        if (typeof delta.content === 'string' && delta.content) {
          text += delta.content
          yield { type: 'text', text: delta.content }
        }
        if (Array.isArray(delta.tool_calls)) {
          for (const tc of delta.tool_calls) {
            const started = assembler.add(tc)
            if (started) yield { type: 'tool_call_start', ...started }
          }
        }
        if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason
      }
    }
  } catch (err) {
    const e = watch.reason ?? toProviderError(err, signal)
    e.midStream = opened
    throw e
  }
  // The SDK ends the iteration quietly when aborted; an aborted call is never a "completed" reply.
  if (watch.reason) throw watch.reason
  if (signal?.aborted) throw new ProviderError('aborted', 'request aborted')
  const toolCalls = assembler.finish()
  if (!text && !reasoning && !toolCalls.length && finishReason === null && !usage) {
    throw Object.assign(
      new ProviderError('malformed', 'malformed provider reply: the stream ended without any content'),
      {
        midStream: true
      }
    )
  }
  // Ended without finish_reason or [DONE]: complete, as upstream takes it (finish_reason "stop"), unless a tool call's
  // arguments are cut off mid-JSON (types.ts, cutOffStream). JSON the model wrote wrong is not a cut: its call runs to
  // the parse error, as on a tool_calls finish (turn-loop.ts), since asking again would not mend it.
  if (
    finishReason === null &&
    !watch.sawDone &&
    toolCalls.some((c) => c.cutFrom === undefined && cutOffJson(c.arguments))
  )
    throw cutOffStream('finish_reason or [DONE]', toolCalls.length)
  yield { type: 'done', response: { text, reasoning, toolCalls, finishReason: finishReason ?? 'stop', usage, model } }
}

/**
 * Consecutive user messages with text content run together, one blank line apart, as upstream's agent sends them
 * (its message-sequence repair, before every call): a user message left unanswered by a failed turn, or a chat UI's
 * "Continue" (the unfinished reply is the user's message after the question), would otherwise reach the provider as
 * two user turns in a row, which chat templates that require alternating roles refuse. Messages with parts stay apart.
 */
function alternating(messages: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = []
  for (const m of messages) {
    const prev = out.at(-1)
    if (
      prev?.role === 'user' &&
      m.role === 'user' &&
      typeof prev.content === 'string' &&
      typeof m.content === 'string'
    ) {
      out[out.length - 1] = {
        ...prev,
        content: prev.content && m.content ? `${prev.content}\n\n${m.content}` : prev.content || m.content
      }
      continue
    }
    out.push(m)
  }
  return out
}

/** Drops fields the wire format doesn't know; keeps tool-call pairing intact. */
function toWire(m: AgentMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    role: m.role,
    // A user message with images goes as OpenAI's content parts (`image_url` kept as the caller sent it).
    content: m.parts?.length ? m.parts : (m.content ?? (m.role === 'assistant' ? null : ''))
  }
  if (m.role === 'assistant' && m.tool_calls?.length) out.tool_calls = m.tool_calls
  if (m.role === 'tool') out.tool_call_id = m.tool_call_id ?? ''
  if (m.role === 'tool' && m.name) out.name = m.name
  return out
}

function reasoningParams(provider: string, cfg: ReasoningConfig | null | undefined): Record<string, unknown> {
  if (!cfg) return {}
  if (provider === 'openrouter') {
    if (cfg.enabled === false || cfg.effort === 'none') return { reasoning: { enabled: false } }
    return { reasoning: cfg.effort ? { effort: cfg.effort } : { enabled: true } }
  }
  if (cfg.enabled === false) return {}
  return cfg.effort ? { reasoning_effort: cfg.effort } : {}
}

function normalizeOpenAIUsage(raw: object): NormalizedUsage {
  const u = raw as Record<string, unknown>
  const pd = (u.prompt_tokens_details ?? {}) as Record<string, unknown>
  const cd = (u.completion_tokens_details ?? {}) as Record<string, unknown>
  const prompt = count(u.prompt_tokens)
  // DeepSeek reports cache hits at top level; OpenRouter/others may add cache writes to the details.
  const cacheRead = count(pd.cached_tokens) || count(u.prompt_cache_hit_tokens)
  const cacheWrite = count(pd.cache_write_tokens) || count(pd.cache_creation_tokens)
  return {
    inputTokens: Math.max(0, prompt - cacheRead - cacheWrite),
    outputTokens: count(u.completion_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: count(cd.reasoning_tokens)
  }
}

function describe(v: unknown): string {
  if (typeof v === 'string') return v.slice(0, 300)
  const m = (v as { message?: unknown })?.message
  return typeof m === 'string' ? m.slice(0, 300) : JSON.stringify(v).slice(0, 300)
}
