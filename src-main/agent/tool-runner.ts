/**
 * Runs one batch of tool calls and persists each result as soon as it exists. Read-only batches run
 * concurrently, everything else in order. An interrupt doesn't wait for a stuck tool: unfinished calls
 * get an "interrupted" result, so the saved history always pairs every call with a result.
 */
import {
  canRunConcurrently,
  executeToolCall,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolContext,
  type ToolRegistry
} from './tools/registry'
import type { TurnContext, Touch } from './turn-context'
import { MESSAGE_PREVIEW_CHARS } from '@shared/contract'

export interface ToolRunDeps {
  registry: ToolRegistry
  toolContext: Omit<ToolContext, 'signal'>
  touch: Touch
  /** Persist one tool result message (appends to the store and the in-memory history). */
  saveResult(result: ToolCallResult): Promise<void>
}

const interrupted = (call: ToolCallRequest): ToolCallResult => ({
  id: call.id,
  name: call.name,
  ok: false,
  content: JSON.stringify({ error: 'interrupted: the turn was stopped before this tool finished' })
})

/** Live deltas go to the browser: a long tool output streams as its preview, the saved message keeps it all. */
const preview = (text: string) =>
  text.length <= MESSAGE_PREVIEW_CHARS
    ? text
    : `${text.slice(0, MESSAGE_PREVIEW_CHARS)}\n[… ${text.length - MESSAGE_PREVIEW_CHARS} more characters in the saved message]`

/** A call whose arguments were cut (`max_tool_args_chars`) is never run: the model is told why, as a tool error. */
const refused = (call: ToolCallRequest): ToolCallResult => ({
  id: call.id,
  name: call.name,
  ok: false,
  content: JSON.stringify({
    error: `tool call refused: its arguments were ${call.cutFrom} characters, over the limit of provider_limits.max_tool_args_chars; send smaller arguments (split the work into several calls)`
  })
})

/** A call whose arguments the stream ended inside (providers/anthropic.ts) is never run either: the model is told. */
const incomplete = (call: ToolCallRequest): ToolCallResult => ({
  id: call.id,
  name: call.name,
  ok: false,
  content: JSON.stringify({
    error: `tool call not run: the provider's stream ended before its arguments were complete (${call.incomplete} characters came); make the call again with all of its arguments`
  })
})

const execute = (deps: ToolRunDeps, call: ToolCallRequest, ctx: ToolContext): Promise<ToolCallResult> =>
  call.cutFrom !== undefined
    ? Promise.resolve(refused(call))
    : call.incomplete !== undefined
      ? Promise.resolve(incomplete(call))
      : executeToolCall(deps.registry, call, ctx)

export async function runToolCalls(deps: ToolRunDeps, calls: ToolCallRequest[], ctx: TurnContext): Promise<void> {
  const toolCtx: ToolContext = { ...deps.toolContext, turnId: ctx.turnId, signal: ctx.signal }
  const start = (call: ToolCallRequest) => {
    ctx.emit({ kind: 'tool_call', toolCallId: call.id, toolName: call.name, text: preview(call.arguments) })
    deps.touch(`running tool ${call.name}`, 'tool')
  }
  const finish = async (result: ToolCallResult) => {
    await deps.saveResult(result)
    ctx.emit({ kind: 'tool_result', toolCallId: result.id, toolName: result.name, text: preview(result.content) })
    deps.touch(`tool ${result.name} finished`, 'tool')
  }
  ctx.watchdogPaused = true
  try {
    if (canRunConcurrently(deps.registry, calls)) {
      calls.forEach(start)
      const results = await untilAborted(Promise.all(calls.map((c) => execute(deps, c, toolCtx))), ctx.signal)
      for (const [i, call] of calls.entries()) await finish(results?.[i] ?? interrupted(call))
      return
    }
    for (const call of calls) {
      if (ctx.signal.aborted) {
        await finish(interrupted(call))
        continue
      }
      start(call)
      await finish((await untilAborted(execute(deps, call, toolCtx), ctx.signal)) ?? interrupted(call))
    }
  } finally {
    ctx.watchdogPaused = false
  }
}

/** The promise's value, or null as soon as the signal aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null)
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = () => resolve(null)
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      }
    )
  })
}
