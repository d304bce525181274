/**
 * The built-in memory files of one profile (`<home>/memories/MEMORY.md`, `USER.md`) as another process writes them:
 * upstream's memory tool edits them without any event Caduceus could hear, so the Memory page would show them stale
 * until a reload. fs.watch on the folder wakes a check at once; a slow tick catches what the watch misses (a folder
 * that does not exist yet — upstream makes it on its first write —, a file system without inotify). A check compares
 * the two files' size + mtime, so a lock file or a temp file's rename that leaves them as they were emits nothing;
 * checks are coalesced into one callback per burst.
 *
 * The profile's config.yaml is watched the same way (only that name in the home, which also holds state.db and its
 * WAL, written on every turn): it holds the files' char limits (`memory.memory_char_limit` / `user_char_limit`), so
 * an edit there changes how full the Memory page says they are.
 */
import { statSync, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'

const FILES = ['MEMORY.md', 'USER.md']
const CONFIG = 'config.yaml'

export interface MemoryWatchOptions {
  /** Coalescing window after a file event (ms). */
  settleMs?: number
  /** Fallback check (ms): default 2000 without a working folder watch, 15000 with one. */
  fallbackMs?: number
}

export class MemoryFolderWatch {
  private fsw: FSWatcher | null = null
  private configWatch: FSWatcher | null = null
  private tick: NodeJS.Timeout | null = null
  private pending: NodeJS.Timeout | null = null
  private print: string
  private readonly dir: string

  constructor(
    private readonly home: string,
    private readonly onChange: () => void,
    private readonly opts: MemoryWatchOptions = {}
  ) {
    this.dir = join(home, 'memories')
    this.print = this.fingerprint()
  }

  start(): this {
    try {
      this.configWatch = watch(this.home, { persistent: false }, (_e, name) => {
        if (name === null || name === CONFIG) this.soon()
      })
      this.configWatch.on('error', () => {
        this.configWatch?.close() // the tick still compares config.yaml's stat
        this.configWatch = null
      })
    } catch {
      this.configWatch = null // no watch on this file system: the tick compares config.yaml's stat
    }
    this.openWatch()
    this.schedule()
    return this
  }

  stop(): void {
    this.fsw?.close()
    this.configWatch?.close()
    this.fsw = this.configWatch = null
    if (this.tick) clearTimeout(this.tick)
    if (this.pending) clearTimeout(this.pending)
    this.tick = this.pending = null
  }

  /** Compare the files with what was last seen; emits once when they differ. */
  check(): void {
    const now = this.fingerprint()
    if (now === this.print) return
    this.print = now
    try {
      this.onChange()
    } catch {
      /* listener bugs stay theirs */
    }
  }

  private fingerprint(): string {
    return [...FILES.map((f) => join(this.dir, f)), join(this.home, CONFIG)]
      .map((file) => {
        try {
          const st = statSync(file)
          return `${st.size}:${st.mtimeMs}`
        } catch {
          return '-' // not there (or not readable): a print that changes when it appears
        }
      })
      .join('|')
  }

  private openWatch(): void {
    if (this.fsw) return
    try {
      this.fsw = watch(this.dir, { persistent: false }, () => this.soon())
      this.fsw.on('error', () => {
        // the folder went away (or the watch broke): the tick checks, and watches again once it is back
        this.fsw?.close()
        this.fsw = null
      })
    } catch {
      this.fsw = null // no folder yet: the tick checks until it appears
    }
  }

  private soon(): void {
    if (this.pending) return
    this.pending = setTimeout(() => {
      this.pending = null
      this.check()
    }, this.opts.settleMs ?? 50)
    this.pending.unref()
  }

  private schedule(): void {
    const ms = this.opts.fallbackMs ?? (this.fsw ? 15_000 : 2000)
    this.tick = setTimeout(
      () => {
        this.openWatch()
        this.check()
        this.schedule()
      },
      Math.max(100, ms)
    )
    this.tick.unref()
  }
}
