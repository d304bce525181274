/**
 * Providers of seed 000, in our API: one with a PROCESS-wide binding (the reported bug's shape), its
 * two-argument variant, and one that keeps its binding on the instance and records the binding and the
 * ambient home of every call and hook.
 */
import { getHermesHome } from '../../scope'
import { MemoryProvider, type InitializeOptions, type MemoryToolSchema, type ToolCallKwargs } from '../provider'

export const TOOL = 'pw_remember'
export const HOOK_TOOL = 'ct_remember'

const schema = (name: string): MemoryToolSchema => ({
  name,
  description: 'remember',
  parameters: { type: 'object', properties: {} }
})

/** One store binding per process, set by whichever profile initialized last. */
export class ProcessWideProvider extends MemoryProvider {
  static binding: string | null = null
  static stores = new Map<string, string[]>()
  static calls: ToolCallKwargs[] = []
  static reset(): void {
    ProcessWideProvider.binding = null
    ProcessWideProvider.stores = new Map()
    ProcessWideProvider.calls = []
  }
  static storesObject(): Record<string, string[]> {
    return Object.fromEntries(ProcessWideProvider.stores)
  }

  readonly name: string = 'processwide'
  isAvailable(): boolean {
    return true
  }
  initialize(_sessionId: string, options: InitializeOptions): void {
    ProcessWideProvider.binding = options.hermesHome
  }
  getToolSchemas(): MemoryToolSchema[] {
    return [schema(TOOL)]
  }
  handleToolCall(_toolName: string, args: Record<string, unknown>, kwargs?: ToolCallKwargs): string {
    ProcessWideProvider.calls.push(kwargs ?? {})
    const home = kwargs?.hermesHome || ProcessWideProvider.binding || '<unbound>'
    const list = ProcessWideProvider.stores.get(home) ?? []
    list.push(String(args.content))
    ProcessWideProvider.stores.set(home, list)
    return JSON.stringify({ ok: true })
  }
}

/** Written against the two-argument `handleToolCall(name, args)` shape. */
export class BareSignatureProvider extends ProcessWideProvider {
  static argCounts: number[] = []
  handleToolCall(_toolName: string, args: Record<string, unknown>): string {
    // eslint-disable-next-line prefer-rest-params
    BareSignatureProvider.argCounts.push(arguments.length)
    const list = ProcessWideProvider.stores.get('bare') ?? []
    list.push(String(args.content))
    ProcessWideProvider.stores.set('bare', list)
    return JSON.stringify({ ok: true })
  }
}

export type HookEvent = [what: string, boundHome: string | null, ambientHome: string]

/** Meets the multiplexing contract: the binding lives on the instance. */
export class InstanceScopedProvider extends MemoryProvider {
  static events: HookEvent[] = []
  readonly name: string = 'instancescoped'
  home: string | null = null

  isAvailable(): boolean {
    return true
  }
  initialize(_sessionId: string, options: InitializeOptions): void {
    this.home = options.hermesHome
  }
  private record(what: string): void {
    InstanceScopedProvider.events.push([what, this.home, getHermesHome()])
  }
  getToolSchemas(): MemoryToolSchema[] {
    return [schema(HOOK_TOOL)]
  }
  handleToolCall(_toolName: string, _args: Record<string, unknown>, kwargs?: ToolCallKwargs): string {
    if (kwargs?.hermesHome !== this.home)
      throw new Error(`kwargs home ${kwargs?.hermesHome} is not the bound ${this.home}`)
    this.record('tool')
    return JSON.stringify({ ok: true })
  }
  prefetch(): string {
    this.record('prefetch')
    return ''
  }
  queuePrefetch(): void {
    this.record('queue_prefetch')
  }
  syncTurn(): void {
    this.record('sync_turn')
  }
  onTurnStart(): void {
    this.record('on_turn_start')
  }
  onSessionEnd(): void {
    this.record('on_session_end')
  }
  onSessionSwitch(): void {
    this.record('on_session_switch')
  }
  onPreCompress(): string {
    this.record('on_pre_compress')
    return ''
  }
  onMemoryWrite(): void {
    this.record('on_memory_write')
  }
  onDelegation(): void {
    this.record('on_delegation')
  }
}

/** Python's `__hash__ = None` analogue: a sealed instance nothing can be attached to; identity must still track it. */
export class SealedProvider extends InstanceScopedProvider {
  constructor() {
    super()
    Object.preventExtensions(this)
  }
}

/** Every instance "equals" every other: equality is not identity. */
export class ValueEqualProvider extends InstanceScopedProvider {
  equals(other: unknown): boolean {
    return other instanceof ValueEqualProvider
  }
  toJSON(): unknown {
    return { kind: 'value-equal' }
  }
}
