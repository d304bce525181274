import { errorMessage } from '@shared/contract/errors'
/**
 * Tool registry and dispatch. The generation counter changes on every register/unregister so the gateway
 * cache signature (`tools.registry_generation`) rebuilds agents whose tool set changed underneath them.
 */
export type JsonSchema = Record<string, unknown>

export interface ToolContext {
  profile: string
  sessionId: string
  turnId: string
  /** Gateway session key of the calling turn (travels with memory tool calls, seed 000). */
  gatewaySessionKey: string
  signal?: AbortSignal
  /** The calling agent, for tools that build or steer agents (`delegate_task`). Absent outside a turn. */
  agent?: ToolCallerAgent
}

/** What a tool may read about the agent that called it. Holds the API key: never log it. */
export interface ToolCallerAgent {
  readonly profile: string
  readonly sessionId: string
  readonly gatewaySessionKey: string
  readonly maxIterations: number
  readonly runtime: {
    model: string
    provider: string
    baseUrl: string
    apiMode: 'chat_completions' | 'anthropic_messages'
    apiKey?: string | null
  }
}

export interface ToolDefinition {
  name: string
  description: string
  parameters: JsonSchema
  toolset?: string
  /** Safe to run alongside other read-only calls (no side effects). A batch runs concurrently only when every call is read-only. */
  readOnly?: boolean
  /**
   * Tear down per-task state (terminal sandbox, browser, background processes) for `taskId` (the agent's
   * session id). Called by the hard `Agent.close()` only, never by the soft `releaseClients()`: an
   * evicted session may resume and must find its state intact (hermes-spec §3.9).
   */
  cleanupTask?(taskId: string): void | Promise<void>
  /** Returns the tool result as a string (usually JSON). Throwing is allowed: dispatch turns it into `{"error": …}`. */
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<string> | string
}

export interface ToolCallRequest {
  id: string
  name: string
  /** Raw JSON text as the model produced it. */
  arguments: string
  /** Set when the model's arguments were longer than `max_tool_args_chars`: their length; `arguments` is a marker. */
  cutFrom?: number
  /**
   * Set when the provider's stream ended before the call's arguments were whole JSON: how many characters came;
   * `arguments` is then a marker. Such a call is never run (its arguments are a guess at best).
   */
  incomplete?: number
}

export interface ToolCallResult {
  id: string
  name: string
  content: string
  ok: boolean
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>()
  private gen = 0

  get generation(): number {
    return this.gen
  }

  register(def: ToolDefinition): void {
    this.tools.set(def.name, def)
    this.gen++
  }

  unregister(name: string): boolean {
    const removed = this.tools.delete(name)
    if (removed) this.gen++
    return removed
  }

  has(name: string): boolean {
    return this.tools.has(name)
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name)
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()]
  }

  /** OpenAI-style function tool schemas, in registration order. */
  schemas(): Array<{ type: 'function'; function: { name: string; description: string; parameters: JsonSchema } }> {
    return this.list().map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters }
    }))
  }
}

const errorJson = (message: string) => JSON.stringify({ error: message })

export async function executeToolCall(
  registry: ToolRegistry,
  call: ToolCallRequest,
  ctx: ToolContext
): Promise<ToolCallResult> {
  const tool = registry.get(call.name)
  if (!tool) return { id: call.id, name: call.name, content: errorJson(`Unknown tool '${call.name}'`), ok: false }
  let args: Record<string, unknown>
  try {
    const parsed: unknown = call.arguments.trim() ? JSON.parse(call.arguments) : {}
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('arguments must be a JSON object')
    args = parsed as Record<string, unknown>
  } catch (err) {
    return {
      id: call.id,
      name: call.name,
      content: errorJson(`Invalid arguments for '${call.name}': ${errorMessage(err)}`),
      ok: false
    }
  }
  try {
    return { id: call.id, name: call.name, content: await tool.execute(args, ctx), ok: true }
  } catch (err) {
    return { id: call.id, name: call.name, content: errorJson(errorMessage(err) || String(err)), ok: false }
  }
}

/** Concurrent when every call targets a known read-only tool (and there is more than one); else sequential. */
export function canRunConcurrently(registry: ToolRegistry, calls: ToolCallRequest[]): boolean {
  return calls.length > 1 && calls.every((c) => registry.get(c.name)?.readOnly === true)
}
