/**
 * A JS plugin's provider object as a MemoryProvider. Hooks the plugin does not define fall back to the
 * base class defaults. One adapter per plugin OBJECT (WeakMap), so a plugin that hands every profile the
 * same instance is still one instance to the caller-scope claim and gets refused for the second profile.
 */
import {
  MemoryProvider,
  type ChatMessage,
  type DelegationOptions,
  type InitializeOptions,
  type MemoryToolSchema,
  type MemoryWriteAction,
  type MemoryWriteTarget,
  type PreCompressOptions,
  type PrefetchOptions,
  type SessionSwitchOptions,
  type SyncTurnOptions,
  type ToolCallKwargs,
  type TurnStartOptions
} from '../provider'

type Fn = (...args: never[]) => unknown
export type PluginObject = Record<string, unknown> & { getToolSchemas: Fn }

const adapters = new WeakMap<object, PluginProvider>()

export function adaptPlugin(obj: PluginObject, fallbackName: string): PluginProvider {
  let a = adapters.get(obj)
  if (!a) {
    a = new PluginProvider(obj, fallbackName)
    adapters.set(obj, a)
  }
  return a
}

export class PluginProvider extends MemoryProvider {
  readonly name: string
  constructor(
    private readonly p: PluginObject,
    fallbackName: string
  ) {
    super()
    this.name = typeof p.name === 'string' && p.name.trim() ? p.name.trim() : fallbackName
    const v = Number(p.preCompressCheckpointApiVersion)
    if (Number.isFinite(v)) this.preCompressCheckpointApiVersion = v
  }

  private call(name: string, args: unknown[], fallback: unknown): never {
    const f = this.p[name]
    return (typeof f === 'function' ? (f as (...a: unknown[]) => unknown).apply(this.p, args) : fallback) as never
  }

  isAvailable(): boolean {
    return this.call('isAvailable', [], true)
  }
  unavailableReason(): string {
    return this.call('unavailableReason', [], '')
  }
  initialize(sessionId: string, options: InitializeOptions) {
    return this.call('initialize', [sessionId, options], undefined)
  }
  getToolSchemas(): MemoryToolSchema[] {
    return this.call('getToolSchemas', [], [])
  }
  handleToolCall(toolName: string, args: Record<string, unknown>, kwargs?: ToolCallKwargs) {
    if (typeof this.p.handleToolCall !== 'function') return super.handleToolCall(toolName, args, kwargs)
    return this.call('handleToolCall', [toolName, args, kwargs], undefined)
  }
  systemPromptBlock() {
    return this.call('systemPromptBlock', [], '')
  }
  prefetch(query: string, options?: PrefetchOptions) {
    return this.call('prefetch', [query, options], '')
  }
  queuePrefetch(query: string, options?: PrefetchOptions) {
    return this.call('queuePrefetch', [query, options], undefined)
  }
  syncTurn(user: string, assistant: string, options?: SyncTurnOptions) {
    return this.call('syncTurn', [user, assistant, options], undefined)
  }
  onTurnStart(n: number, message: string, options?: TurnStartOptions) {
    return this.call('onTurnStart', [n, message, options], undefined)
  }
  onSessionEnd(messages: ChatMessage[]) {
    return this.call('onSessionEnd', [messages], undefined)
  }
  onSessionSwitch(id: string, options?: SessionSwitchOptions) {
    return this.call('onSessionSwitch', [id, options], undefined)
  }
  onPreCompress(messages: ChatMessage[], options?: PreCompressOptions) {
    return this.call('onPreCompress', [messages, options], '')
  }
  onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryWriteTarget,
    content: string,
    metadata?: Record<string, unknown>
  ) {
    return this.call('onMemoryWrite', [action, target, content, metadata], undefined)
  }
  onDelegation(task: string, result: string, options?: DelegationOptions) {
    return this.call('onDelegation', [task, result, options], undefined)
  }
  shutdown() {
    return this.call('shutdown', [], undefined)
  }
  writeOf(toolName: string, args: Record<string, unknown>): string | null {
    const w = this.call('writeOf', [toolName, args], null) as unknown
    return typeof w === 'string' && w ? w : null
  }
  identitySignature(): Record<string, unknown> {
    const id = this.call('identitySignature', [], {}) as unknown
    return id && typeof id === 'object' && !Array.isArray(id) ? (id as Record<string, unknown>) : {}
  }
}
