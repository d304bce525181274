/**
 * Bounded capture of a process's combined stdout+stderr: keeps the first `head` chars and the last `tail`
 * chars, counting what fell out in between. A chatty command (`yes`, a build log) can never grow host memory.
 */
export interface OutputBufferOptions {
  /** Chars kept from the start (0 = tail only, like a ring buffer). */
  head?: number
  /** Chars kept from the end. */
  tail: number
}

export class OutputBuffer {
  private readonly headCap: number
  private readonly tailCap: number
  private head = ''
  private tail = ''
  private total = 0

  constructor(opts: OutputBufferOptions) {
    this.headCap = Math.max(0, Math.floor(opts.head ?? 0))
    this.tailCap = Math.max(1, Math.floor(opts.tail))
  }

  append(chunk: string): void {
    if (!chunk) return
    this.total += chunk.length
    let rest = chunk
    if (this.head.length < this.headCap) {
      const room = this.headCap - this.head.length
      this.head += rest.slice(0, room)
      rest = rest.slice(room)
    }
    if (!rest) return
    this.tail += rest
    // Trim lazily (at 2x) so appends stay amortized O(chunk) instead of re-slicing on every write.
    if (this.tail.length > this.tailCap * 2) this.tail = this.tail.slice(-this.tailCap)
  }

  /** Chars dropped between head and tail. */
  get omitted(): number {
    return Math.max(0, this.total - this.head.length - Math.min(this.tail.length, this.tailCap))
  }

  get truncated(): boolean {
    return this.omitted > 0
  }

  get totalChars(): number {
    return this.total
  }

  text(): string {
    const tail = this.tail.length > this.tailCap ? this.tail.slice(-this.tailCap) : this.tail
    const gap = this.omitted
    return gap > 0 ? `${this.head}${this.head ? '\n' : ''}[… ${gap} chars omitted …]\n${tail}` : this.head + tail
  }

  /** The last `n` chars (for completion notices). */
  lastChars(n: number): string {
    const all = this.tail.length > 0 ? this.tail : this.head
    return all.length > n ? all.slice(-n) : all
  }
}
