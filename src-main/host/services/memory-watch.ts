/**
 * A profile's files that another process rewrites without any event Caduceus could hear: upstream's memory tool edits
 * the built-in memory files (`<home>/memories/MEMORY.md`, `USER.md`), its cron CLI and scheduler rewrite
 * `<home>/cron/jobs.json`, so the Memory and Cron pages would show them stale until a reload. fs.watch on the folder
 * wakes a check at once; a slow tick catches what the watch misses (a folder that does not exist yet — upstream makes
 * it on its first write —, a file system without inotify). A check compares the files' size + mtime, so a lock file
 * or a temp file beside them that leaves them as they were emits nothing; checks are coalesced into one callback per
 * burst.
 *
 * Files in the home itself are watched the same way, by name only (the home also holds state.db and its WAL, written
 * on every turn): the memory watch names config.yaml, which holds the files' char limits
 * (`memory.memory_char_limit` / `user_char_limit`), so an edit there changes how full the Memory page says they are.
 */
import { statSync, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'

/** What a watch compares: `files` in `<home>/<folder>/`, and `homeFiles` in the home itself. */
export interface WatchedFiles {
  folder: string
  files: string[]
  homeFiles: string[]
}

const MEMORY: WatchedFiles = { folder: 'memories', files: ['MEMORY.md', 'USER.md'], homeFiles: ['config.yaml'] }
const CRON: WatchedFiles = { folder: 'cron', files: ['jobs.json'], homeFiles: [] }

export interface MemoryWatchOptions {
  /** Coalescing window after a file event (ms). */
  settleMs?: number
  /** Fallback check (ms): default 2000 without a working folder watch, 15000 with one. */
  fallbackMs?: number
}

class FolderFilesWatch {
  private fsw: FSWatcher | null = null
  private configWatch: FSWatcher | null = null
  private tick: NodeJS.Timeout | null = null
  private pending: NodeJS.Timeout | null = null
  private print: string
  private readonly dir: string

  constructor(
    private readonly home: string,
    private readonly what: WatchedFiles,
    private readonly onChange: () => void,
    private readonly opts: MemoryWatchOptions = {}
  ) {
    this.dir = join(home, what.folder)
    this.print = this.fingerprint()
  }

  start(): this {
    if (this.what.homeFiles.length) this.watchHome()
    this.openWatch()
    this.schedule()
    return this
  }

  private watchHome(): void {
    try {
      this.configWatch = watch(this.home, { persistent: false }, (_e, name) => {
        if (name === null || this.what.homeFiles.includes(name)) this.soon()
      })
      this.configWatch.on('error', () => {
        this.configWatch?.close() // the tick still compares config.yaml's stat
        this.configWatch = null
      })
    } catch {
      this.configWatch = null // no watch on this file system: the tick compares config.yaml's stat
    }
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
    return [...this.what.files.map((f) => join(this.dir, f)), ...this.what.homeFiles.map((f) => join(this.home, f))]
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

/** A profile's built-in memory files and its config.yaml (their char limits), for `memory.changed`. */
export class MemoryFolderWatch extends FolderFilesWatch {
  constructor(home: string, onChange: () => void, opts: MemoryWatchOptions = {}) {
    super(home, MEMORY, onChange, opts)
  }
}

/** A profile's `cron/jobs.json`, for `cron.changed`. */
export class CronJobsWatch extends FolderFilesWatch {
  constructor(home: string, onChange: () => void, opts: MemoryWatchOptions = {}) {
    super(home, CRON, onChange, opts)
  }
}
