/**
 * A store read from a private copy (read-copy.ts) follows its original by taking a new copy whenever the original's
 * print changes. The copy of a large home is taken off the event loop (`refreshCopy`): until it is whole the store
 * goes on reading its previous copy, and once it is, `onReady` asks the store's owner to look again (the watcher's
 * check calls `syncFile`, which opens the new copy and names every session, as for any replaced file).
 */
import { dropCopy, refreshCopy, sourcePrint, type ReadCopy } from './read-copy'

/** Thrown by `CopyRefresh.take` while the new copy is being taken: the store keeps reading the copy it has. */
export class CopyPending extends Error {
  constructor() {
    super('a new copy of state.db is being taken')
    this.name = 'CopyPending'
  }
}

export class CopyRefresh {
  private running = false
  private ready: ReadCopy | null = null
  private failed: unknown = null
  /** A copy is wanted: false once the store reads the original in place again (a copy landing then is dropped). */
  private wanted = false
  private closed = false

  constructor(private readonly onReady: () => void) {}

  /**
   * The copy of `file` as it is now, if one is whole; otherwise one is started (unless it already runs) and this
   * throws CopyPending. The failure of the last attempt is thrown once (the caller keeps its copy and looks again).
   */
  readonly take = (file: string, reason: string): ReadCopy => {
    this.wanted = true
    if (this.failed) {
      const err = this.failed
      this.failed = null
      throw err
    }
    const ready = this.ready
    this.ready = null
    if (ready && ready.print === sourcePrint(file)) return ready
    if (ready) dropCopy(ready) // the original moved again since
    this.start(file, reason)
    throw new CopyPending()
  }

  private start(file: string, reason: string): void {
    if (this.running || this.closed) return
    this.running = true
    refreshCopy(file, reason).then(
      (copy) => {
        this.running = false
        if (this.closed || !this.wanted) return dropCopy(copy)
        this.ready = copy
        this.onReady()
      },
      (err: unknown) => {
        this.running = false
        if (this.closed || !this.wanted) return
        this.failed = err
        this.onReady()
      }
    )
  }

  /** The store let go of its copies (closed, or reading the original in place again): one still coming is dropped. */
  close(): void {
    this.closed = true
    this.drop()
  }

  /** No copy is wanted now (the store reads the original in place): one made ready, or still being taken, goes. */
  drop(): void {
    this.wanted = false
    if (this.ready) dropCopy(this.ready)
    this.ready = null
    this.failed = null
  }
}
