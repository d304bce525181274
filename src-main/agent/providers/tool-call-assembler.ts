/**
 * Assembles OpenAI-style streamed tool-call fragments into complete calls. Fragments are keyed by
 * `index`; the id and name arrive once, the arguments as string pieces. Some servers (Ollama, older
 * vLLM) omit `index` or send the whole call in one chunk, so a missing index means "a new call"
 * when an id is present and "the last call" otherwise.
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
  id: string
  name: string
  args: ArgsBuffer
}

export class ToolCallAssembler {
  private readonly calls = new Map<number, Partial>()
  private lastIndex = -1

  constructor(private readonly maxArgsChars = 0) {}

  /** Feeds one raw delta entry; returns the index when this entry announced a new named call. */
  add(raw: unknown): { index: number; id: string; name: string } | null {
    if (!raw || typeof raw !== 'object') return null
    const d = raw as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }
    let index: number
    if (typeof d.index === 'number' && Number.isInteger(d.index) && d.index >= 0) index = d.index
    else index = typeof d.id === 'string' && d.id ? this.lastIndex + 1 : Math.max(this.lastIndex, 0)
    this.lastIndex = Math.max(this.lastIndex, index)
    const existing = this.calls.get(index)
    const call = existing ?? { id: '', name: '', args: new ArgsBuffer(this.maxArgsChars) }
    const hadName = call.name !== ''
    if (typeof d.id === 'string' && d.id) call.id = d.id
    const fn = d.function && typeof d.function === 'object' ? d.function : undefined
    if (fn && typeof fn.name === 'string' && fn.name) call.name = hadName ? call.name : fn.name
    if (fn && typeof fn.arguments === 'string') call.args.add(fn.arguments)
    else if (fn && fn.arguments && typeof fn.arguments === 'object') call.args.add(JSON.stringify(fn.arguments))
    this.calls.set(index, call)
    return !hadName && call.name ? { index, id: call.id, name: call.name } : null
  }

  get size(): number {
    return this.calls.size
  }

  /** Complete calls in index order; calls that never got a name are dropped, missing ids are synthesized. */
  finish(): ToolCallRequest[] {
    return [...this.calls.entries()]
      .sort((a, b) => a[0] - b[0])
      .filter(([, c]) => c.name)
      .map(([i, c]) => ({
        id: c.id || `call_${i}_${Math.random().toString(36).slice(2, 10)}`,
        name: c.name,
        ...c.args.result()
      }))
  }
}
