/** A configurable provider that records every hook it sees, for manager semantics tests. */
import {
  MemoryProvider,
  type InitializeOptions,
  type MemoryToolSchema,
  type PreCompressOptions,
  type SessionSwitchOptions
} from '../provider'

export type Call = [provider: string, hook: string, ...args: unknown[]]

export class RecordingProvider extends MemoryProvider {
  readonly calls: Call[] = []
  home: string | null = null
  prefetchResult: string | (() => Promise<string>) = ''
  syncGate: Promise<void> | null = null
  fail = new Set<string>()

  constructor(
    readonly name: string,
    private readonly tools: string[] = [],
    private readonly log: Call[] = []
  ) {
    super()
  }

  private hit(hook: string, ...args: unknown[]): void {
    this.calls.push([this.name, hook, ...args])
    this.log.push([this.name, hook, ...args])
    if (this.fail.has(hook)) throw new Error(`${hook} exploded (sk-abcdefghijklmnop1234)`)
  }

  isAvailable(): boolean {
    return true
  }
  initialize(sessionId: string, options: InitializeOptions): void {
    this.home = options.hermesHome
    this.hit('initialize', sessionId, options.platform)
  }
  getToolSchemas(): MemoryToolSchema[] {
    if (this.fail.has('get_tool_schemas')) throw new Error('schemas exploded')
    return this.tools.map((name) => ({ name, description: name, parameters: { type: 'object', properties: {} } }))
  }
  handleToolCall(toolName: string, args: Record<string, unknown>): string {
    this.hit('tool', toolName)
    return JSON.stringify({ ok: true, tool: toolName, args })
  }
  systemPromptBlock(): string {
    this.hit('system_prompt')
    return this.name === 'empty' ? '' : `[${this.name} block]`
  }
  async prefetch(query: string): Promise<string> {
    this.hit('prefetch', query)
    return typeof this.prefetchResult === 'function' ? this.prefetchResult() : this.prefetchResult
  }
  async syncTurn(user: string, assistant: string): Promise<void> {
    this.hit('sync_turn', user, assistant)
    if (this.syncGate) await this.syncGate
  }
  onSessionEnd(): void {
    this.hit('on_session_end')
  }
  onSessionSwitch(id: string, options?: SessionSwitchOptions): void {
    this.hit('on_session_switch', id, options)
  }
  onPreCompress(_messages: unknown[], options?: PreCompressOptions): string {
    this.hit('on_pre_compress', options)
    return `${this.name} checkpoint`
  }
  onMemoryWrite(action: string, target: string, content: string): void {
    this.hit('on_memory_write', action, target, content)
  }
  shutdown(): void {
    this.hit('shutdown')
  }
}
