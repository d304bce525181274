/**
 * Anthropic Messages API through `@anthropic-ai/sdk`, streamed. Thinking deltas become reasoning,
 * `input_json_delta` pieces are assembled per content block into tool calls, and usage combines
 * `message_start` (input + cache creation/read) with `message_delta` (output).
 */
// Type-only at load: the SDK is imported on the first call (start-up doesn't pay for a provider it may never use).
import type Anthropic from '@anthropic-ai/sdk'
import { isDirectAnthropic, thinkingParam, toAnthropicMessages, toAnthropicTools } from './anthropic-convert'
import { runtimeCallLimits, watchedCall, type CallWatch } from './call-limits'
import { cutOffJson } from '../json-prefix'
import { toProviderError } from './errors'
import { ArgsBuffer } from './tool-call-assembler'
import { splitUrlCredentials } from './url-auth'
import {
  count,
  emptyUsage,
  ProviderError,
  type ChatRequest,
  type NormalizedUsage,
  type ProviderClient,
  type RuntimeConfig,
  type StreamEvent,
  type ThinkingBlock
} from './types'
import type { ToolCallRequest } from '../tools/registry'

export function createAnthropicClient(runtime: RuntimeConfig): ProviderClient {
  const limits = runtimeCallLimits(runtime)
  // Userinfo in the base URL becomes `Authorization: Basic …`; the key still goes as `x-api-key`.
  const target = splitUrlCredentials(runtime.baseUrl)
  // One SDK per call (watchedCall): its `fetch` is that call's watch.
  const sdkFor = async (watch: CallWatch): Promise<Anthropic> =>
    new (await import('@anthropic-ai/sdk')).default({
      apiKey: runtime.apiKey || 'no-key',
      authToken: null,
      // The SDK appends `/v1/messages` itself; accept base URLs written either way.
      baseURL: target.url.replace(/\/+$/, '').replace(/\/v1$/, ''),
      defaultHeaders: target.headers,
      maxRetries: 0,
      timeout: runtime.timeoutMs,
      fetch: watch.fetch as never,
      logLevel: 'off'
    })
  return {
    apiMode: 'anthropic_messages',
    stream: (req, signal) =>
      watchedCall(limits, signal, sdkFor, (sdk, watch) => streamMessages(sdk, watch, runtime, req, signal))
  }
}

interface BlockState {
  kind: string
  id?: string
  name?: string
  json: ArgsBuffer
  thinking: string
  signature: string
  data?: string
  /** `tool_use.input` as given whole in content_block_start (used when no input_json_delta follows). */
  input?: string
  deltas?: boolean
}

async function* streamMessages(
  sdk: Anthropic,
  watch: CallWatch,
  runtime: RuntimeConfig,
  req: ChatRequest,
  signal?: AbortSignal
): AsyncGenerator<StreamEvent> {
  const { system, messages } = toAnthropicMessages(req.messages, { signedThinking: isDirectAnthropic(runtime.baseUrl) })
  const thinking = thinkingParam(req.reasoning)
  let maxTokens = req.maxTokens ?? runtime.maxTokens ?? 4096
  if (thinking && maxTokens <= thinking.budget_tokens) maxTokens = thinking.budget_tokens + 4096
  const body: Record<string, unknown> = { model: req.model, max_tokens: maxTokens, messages, stream: true }
  if (system) body.system = system
  if (req.tools?.length) body.tools = toAnthropicTools(req.tools)
  if (thinking) body.thinking = thinking

  const blocks = new Map<number, BlockState>()
  let text = ''
  let reasoning = ''
  let finishReason: string | null = null
  /** The stop reason as Anthropic named it (finishReason is it in OpenAI's terms). */
  let stopReason: string | null = null
  let started = false
  let model: string | null = null
  const usage: NormalizedUsage = emptyUsage()
  let sawUsage = false
  let stopped = false
  let opened = false
  try {
    const stream = (await sdk.messages.create(body as never, {
      signal: watch.signal
    })) as unknown as AsyncIterable<unknown>
    opened = true
    for await (const raw of stream) {
      if (!raw || typeof raw !== 'object')
        throw new ProviderError('malformed', 'malformed provider reply: stream event is not an object')
      const ev = raw as Record<string, any>
      switch (ev.type) {
        case 'message_start': {
          started = true
          const m = ev.message ?? {}
          if (typeof m.model === 'string') model = m.model
          if (m.usage) {
            sawUsage = true
            mergeUsage(usage, m.usage)
          }
          break
        }
        case 'content_block_start': {
          const b = ev.content_block ?? {}
          const st: BlockState = {
            kind: String(b.type),
            id: b.id,
            name: b.name,
            json: new ArgsBuffer(watch.limits.maxToolArgsChars),
            thinking: '',
            signature: '',
            data: b.data,
            input: b.type === 'tool_use' ? wholeInput(b.input) : undefined
          }
          blocks.set(Number(ev.index), st)
          if (b.type === 'text' && typeof b.text === 'string' && b.text) {
            text += b.text
            yield { type: 'text', text: b.text }
          }
          if (b.type === 'tool_use' && typeof b.name === 'string')
            yield { type: 'tool_call_start', index: Number(ev.index), id: String(b.id ?? ''), name: b.name }
          break
        }
        case 'content_block_delta': {
          const d = ev.delta ?? {}
          const st = blocks.get(Number(ev.index))
          if (d.type === 'text_delta' && typeof d.text === 'string') {
            text += d.text
            yield { type: 'text', text: d.text }
          } else if (d.type === 'thinking_delta' && typeof d.thinking === 'string') {
            reasoning += d.thinking
            if (st) st.thinking += d.thinking
            yield { type: 'reasoning', text: d.thinking }
          } else if (d.type === 'signature_delta' && st && typeof d.signature === 'string') st.signature += d.signature
          else if (d.type === 'input_json_delta' && st && typeof d.partial_json === 'string') {
            st.deltas = true
            st.json.add(d.partial_json)
          }
          break
        }
        case 'message_delta':
          if (typeof ev.delta?.stop_reason === 'string') {
            stopReason = ev.delta.stop_reason
            finishReason = mapStop(ev.delta.stop_reason)
          }
          if (ev.usage) {
            sawUsage = true
            mergeUsage(usage, ev.usage)
          }
          break
        case 'message_stop':
          stopped = true
          break
        case 'error':
          throw new ProviderError(
            'http',
            `provider reported an error mid-stream: ${String(ev.error?.message ?? 'unknown error')}`
          )
        default:
          break // ping and future event types
      }
      // The reply is complete: stop reading (leaving the loop closes the body), so a server that holds the
      // connection open afterwards is not waited on until the inactivity clock turns the reply into an error.
      if (stopped) break
    }
  } catch (err) {
    const e = watch.reason ?? toProviderError(err, signal)
    e.midStream = opened
    throw e
  }
  if (watch.reason) throw watch.reason
  if (signal?.aborted) throw new ProviderError('aborted', 'request aborted')
  if (!blocks.size && stopReason !== 'end_turn' && stopReason !== 'refusal') {
    // Nothing in the reply. Before message_start too, the stream was empty (asked again as one cut before any text);
    // after it, the reply is whole but holds nothing (an empty content list is a reply only with end_turn or
    // refusal), which upstream asks for again on its invalid-response schedule (stream-retry.ts).
    const err = new ProviderError(
      'malformed',
      started
        ? `malformed provider reply: the reply held no content (stop reason: ${stopReason ?? 'none'})`
        : 'malformed provider reply: the stream ended without any content'
    )
    err.midStream = true
    err.emptyReply = started
    throw err
  }
  const toolCalls: ToolCallRequest[] = []
  const thinkingBlocks: ThinkingBlock[] = []
  for (const [, b] of [...blocks.entries()].sort((a, z) => a[0] - z[0])) {
    if (b.kind === 'tool_use' && b.name) {
      let json = b.json
      if (!b.deltas && b.input !== undefined) {
        json = new ArgsBuffer(watch.limits.maxToolArgsChars)
        json.add(b.input)
      }
      const args = json.result()
      const call: ToolCallRequest = {
        id: b.id || `toolu_${toolCalls.length}`,
        name: b.name,
        ...args,
        arguments: args.arguments || '{}'
      }
      // Only JSON that lacks its end was cut off; input written wrong is kept as it came, and the tool runner answers
      // it with the parse error (as it answers such OpenAI-style arguments).
      toolCalls.push(call.cutFrom === undefined && cutOffJson(call.arguments) ? incompleteCall(call) : call)
    }
    if (b.kind === 'thinking') thinkingBlocks.push({ type: 'thinking', thinking: b.thinking, signature: b.signature })
    if (b.kind === 'redacted_thinking') thinkingBlocks.push({ type: 'redacted_thinking', data: b.data })
  }
  // Ended without message_stop: complete, as upstream takes it (its stop reason, else "stop").
  yield {
    type: 'done',
    response: {
      text,
      reasoning,
      toolCalls,
      finishReason: finishReason ?? 'stop',
      usage: sawUsage ? usage : null,
      model,
      thinkingBlocks
    }
  }
}

/**
 * A tool_use whose streamed input is JSON without its end: the body ended (with message_stop or without) before the input
 * did. Upstream runs such a call with what its SDK's partial parse makes of the input (`{}`, or the fields before the
 * cut, a number cut short included); this one is never run. It is kept as the model's call, its arguments a marker,
 * and the tool runner answers it with a result saying they were cut off, so the model can make it again whole.
 */
function incompleteCall(call: ToolCallRequest): ToolCallRequest {
  const received = call.arguments.length
  return {
    id: call.id,
    name: call.name,
    arguments: JSON.stringify({ _cut: `arguments cut off: the stream ended after ${received} characters of them` }),
    incomplete: received
  }
}

/** A non-empty `tool_use.input` object as JSON; an empty one (the usual placeholder before deltas) is none. */
function wholeInput(input: unknown): string | undefined {
  if (!input || typeof input !== 'object' || Array.isArray(input) || !Object.keys(input).length) return undefined
  return JSON.stringify(input)
}

// message_start carries input/cache counts, message_delta the cumulative output: take the max of each.
function mergeUsage(into: NormalizedUsage, raw: Record<string, unknown>): void {
  into.inputTokens = Math.max(into.inputTokens, count(raw.input_tokens))
  into.outputTokens = Math.max(into.outputTokens, count(raw.output_tokens))
  into.cacheReadTokens = Math.max(into.cacheReadTokens, count(raw.cache_read_input_tokens))
  into.cacheWriteTokens = Math.max(into.cacheWriteTokens, count(raw.cache_creation_input_tokens))
}

/** Anthropic stop reasons in OpenAI terms, so the loop has one vocabulary. */
function mapStop(reason: string): string {
  return reason === 'end_turn' || reason === 'stop_sequence'
    ? 'stop'
    : reason === 'tool_use'
      ? 'tool_calls'
      : reason === 'max_tokens'
        ? 'length'
        : reason === 'refusal'
          ? 'content_filter'
          : reason
}
