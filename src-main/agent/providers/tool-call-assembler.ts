/**
 * Assembles OpenAI-style streamed tool-call fragments into complete calls. Fragments are keyed by
 * `index`; the id and name arrive once, the arguments as string pieces. Some servers (Ollama, older
 * vLLM) omit `index` or send the whole call in one chunk, so a missing index means "a new call"
 * when an id is present and "the last call" otherwise.
 */
import type { ToolCallRequest } from '../tools/registry'

interface Partial {
  id: string
  name: string
  arguments: string
}

export class ToolCallAssembler {
  private readonly calls = new Map<number, Partial>()
  private lastIndex = -1

  /** Feeds one raw delta entry; returns the index when this entry announced a new named call. */
  add(raw: unknown): { index: number; id: string; name: string } | null {
    if (!raw || typeof raw !== 'object') return null
    const d = raw as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }
    let index: number
    if (typeof d.index === 'number' && Number.isInteger(d.index) && d.index >= 0) index = d.index
    else index = typeof d.id === 'string' && d.id ? this.lastIndex + 1 : Math.max(this.lastIndex, 0)
    this.lastIndex = Math.max(this.lastIndex, index)
    const existing = this.calls.get(index)
    const call = existing ?? { id: '', name: '', arguments: '' }
    const hadName = call.name !== ''
    if (typeof d.id === 'string' && d.id) call.id = d.id
    const fn = d.function && typeof d.function === 'object' ? d.function : undefined
    if (fn && typeof fn.name === 'string' && fn.name) call.name = hadName ? call.name : fn.name
    if (fn && typeof fn.arguments === 'string') call.arguments += fn.arguments
    else if (fn && fn.arguments && typeof fn.arguments === 'object') call.arguments += JSON.stringify(fn.arguments)
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
        arguments: c.arguments
      }))
  }
}
