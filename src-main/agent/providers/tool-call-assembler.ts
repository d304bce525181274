/**
 * Assembles OpenAI-style streamed tool-call fragments into complete calls. Fragments are keyed by
 * `index`; the id and name arrive once, the arguments as string pieces. Servers bend this in a few ways:
 *  - no `index` at all (Ollama, older vLLM, whole calls in one chunk): a fragment with an id the last call
 *    doesn't have starts a new call, one repeating the last call's id (or carrying none) continues it;
 *  - every call sent at `index` 0 (Ollama): a fragment whose id differs from the one already held at its
 *    index starts a new call there, and the id-less fragments after it follow the new call.
 */
import type { ToolCallRequest } from '../tools/registry'

/**
 * One call's arguments as they stream in, kept only up to `max` characters (`max_tool_args_chars`): past it the
 * text is dropped and only its length counted, so an endless call costs no memory and is never stored or
 * re-sent whole. The tool runner refuses a cut call to the model as a tool error.
 */
export class ArgsBuffer {
  private parts: string[] = []
  private size = 0
  constructor(private readonly max: number) {}

  add(piece: string): void {
    this.size += piece.length
    if (this.max > 0 && this.size > this.max) this.parts = []
    else this.parts.push(piece)
  }

  get cut(): boolean {
    return this.max > 0 && this.size > this.max
  }

  /** The call's fields: the arguments, or a short JSON marker and the length that was cut. */
  result(): Pick<ToolCallRequest, 'arguments' | 'cutFrom'> {
    if (!this.cut) return { arguments: this.parts.join('') }
    const note = `arguments cut: ${this.size} characters is over provider_limits.max_tool_args_chars (${this.max})`
    return { arguments: JSON.stringify({ _cut: note }), cutFrom: this.size }
  }
}

interface Partial {
  /** The wire index (or the one inferred for a fragment without it); calls sort by it, then by arrival. */
  index: number
  /** Arrival order: unique per call, also when a server reuses an index. */
  seq: number
  id: string
  name: string
  args: ArgsBuffer
}

export class ToolCallAssembler {
  private readonly calls: Partial[] = []
  /** The call each wire index currently feeds. */
  private readonly atIndex = new Map<number, Partial>()
  private last: Partial | null = null
  private maxIndex = -1

  constructor(private readonly maxArgsChars = 0) {}

  /** Feeds one raw delta entry; returns the call's number when this entry announced a new named call. */
  add(raw: unknown): { index: number; id: string; name: string } | null {
    if (!raw || typeof raw !== 'object') return null
    const d = raw as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }
    const id = typeof d.id === 'string' ? d.id : ''
    let index: number
    let call: Partial | undefined
    if (typeof d.index === 'number' && Number.isInteger(d.index) && d.index >= 0) {
      index = d.index
      call = this.atIndex.get(index)
      // Same index, another id: a new call (Ollama numbers every call 0).
      if (call && id && call.id && call.id !== id) call = undefined
    } else if (id) {
      call = this.last && this.last.id === id ? this.last : undefined
      index = call ? call.index : this.maxIndex + 1
    } else {
      call = this.last ?? undefined
      index = call ? call.index : Math.max(this.maxIndex, 0)
    }
    if (!call) {
      call = { index, seq: this.calls.length, id: '', name: '', args: new ArgsBuffer(this.maxArgsChars) }
      this.calls.push(call)
    }
    this.atIndex.set(index, call)
    this.last = call
    this.maxIndex = Math.max(this.maxIndex, index)
    const hadName = call.name !== ''
    if (id && !call.id) call.id = id
    const fn = d.function && typeof d.function === 'object' ? d.function : undefined
    if (fn && typeof fn.name === 'string' && fn.name) call.name = hadName ? call.name : fn.name
    if (fn && typeof fn.arguments === 'string') call.args.add(fn.arguments)
    else if (fn && fn.arguments && typeof fn.arguments === 'object') call.args.add(JSON.stringify(fn.arguments))
    return !hadName && call.name ? { index: call.seq, id: call.id, name: call.name } : null
  }

  get size(): number {
    return this.calls.length
  }

  /** Complete calls in index order; calls that never got a name are dropped, missing ids are synthesized. */
  finish(): ToolCallRequest[] {
    return [...this.calls]
      .sort((a, b) => a.index - b.index || a.seq - b.seq)
      .filter((c) => c.name)
      .map((c) => ({
        id: c.id || `call_${c.seq}_${Math.random().toString(36).slice(2, 10)}`,
        name: c.name,
        ...c.args.result()
      }))
  }
}
