/**
 * ONE serialized background lane per manager (upstream: a single-worker pool `mem-sync`). A promise
 * chain keeps writes in submission order; each task is bound to its submitter's async context at
 * submission (ctxBound) so it can never pick up whatever scope happens to be current when it runs.
 */
import { ctxBound } from '../scope'

export class BackgroundQueue {
  private tail: Promise<void> = Promise.resolve()
  private pendingCount = 0

  constructor(private readonly onError: (label: string, err: unknown) => void) {}

  get pending(): number {
    return this.pendingCount
  }

  submit(label: string, task: () => unknown): void {
    const bound = ctxBound(task)
    this.pendingCount++
    this.tail = this.tail
      .then(async () => {
        try {
          await bound()
        } catch (err) {
          this.onError(label, err)
        }
      })
      .finally(() => {
        this.pendingCount--
      })
  }

  /** Wait until everything submitted so far has run. False when `timeoutMs` passed first. */
  async flush(timeoutMs: number): Promise<boolean> {
    if (this.pendingCount === 0) return true
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs))
      timer.unref?.()
    })
    const target = this.tail
    try {
      return await Promise.race([target.then(() => true as const), timedOut])
    } finally {
      clearTimeout(timer)
    }
  }
}
