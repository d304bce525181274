/**
 * A small real agent for cache tests: it records what the cache did to it and models the part of the
 * real Agent the cache must protect (task state that only a hard close tears down).
 */
import type { CacheableAgent } from '../cacheable'

export class TestAgent implements CacheableAgent {
  static seq = 0
  readonly id = ++TestAgent.seq
  client: object | null = { open: true }
  lastActivityTs: number | null
  lastActivityDesc = 'previous turn activity'
  lastActivityProvenance = 'compression'
  apiCallCount = 10
  maxIterations = 5
  sessionMessages: unknown[] | null = []
  /** Terminal sandbox / browser / background processes: survive a soft release, die on close(). */
  taskState: 'alive' | 'torn_down' = 'alive'
  readonly calls: string[] = []
  memoryCommits: Array<unknown[] | null> = []

  constructor(lastActivityTs: number | null = Date.now()) {
    this.lastActivityTs = lastActivityTs
  }

  releaseClients(): void | Promise<void> {
    this.calls.push('releaseClients')
    this.client = null
  }

  close(): void {
    this.calls.push('close')
    this.client = null
    this.taskState = 'torn_down'
  }

  commitMemorySession(messages: unknown[] | null): void {
    this.calls.push('commitMemorySession')
    this.memoryCommits.push(messages ? [...messages] : null)
  }
}
