import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { redact, type SecretMask } from '../../secrets'
import type { LogLevel, LogRecord, Logger } from '@shared/contract/log'

/** The kernel's Logger (what every layer is handed) plus sinks for the gateway log view and tests. */
export interface HostLogger extends Logger {
  /** Attach a sink (tests, the gateway log view). Returns a detach function. */
  attach(sink: (record: LogRecord) => void): () => void
}

// The process's last resort (secrets/redact.ts): every live host's secret values and the credential shapes, for
// lines that belong to no host (the Electron entry's and the CLI's fatal messages on stderr).
export { redact }

export interface LoggerOptions {
  /**
   * The host's secret mask: its secret values and the credential shapes are masked before a line reaches a file, the
   * console or a sink. Without one (a logger no host owns) the process's last resort masks it.
   */
  mask?: SecretMask
  logFile?: string
  errorFile?: string
  console?: boolean
  minLevel?: LogLevel
  /** Rotate a file past this size (bytes); `.1` … `.keep` are kept. */
  maxBytes?: number
  keep?: number
  /** The same warning/error (digits ignored) is written at most `burst` times per `windowMs`. */
  burst?: number
  windowMs?: number
  now?: () => number
}

const MAX_MESSAGE = 4000

/** Our log folder is private (0700): fix one we created or own, never a shared sticky one like /tmp. */
function privateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 })
  try {
    const st = statSync(dir)
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid()
    if (created || (mine && !(st.mode & 0o1000))) chmodSync(dir, 0o700)
  } catch {
    // best effort: logging must not stop the host
  }
}

/** Appends to one file at 0600, rotating by size. */
class LogFile {
  private size = 0
  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly keep: number
  ) {
    try {
      this.size = statSync(path).size
      chmodSync(path, 0o600)
    } catch {
      this.size = 0 // no file yet: the first append creates it; logging never stops the host (below)
    }
  }
  append(line: string): void {
    const bytes = Buffer.byteLength(line)
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate()
    appendFileSync(this.path, line, { mode: 0o600 })
    this.size += bytes
  }
  private rotate(): void {
    try {
      rmSync(`${this.path}.${this.keep}`, { force: true })
      for (let i = this.keep - 1; i >= 1; i--) {
        try {
          renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`)
        } catch {
          // that generation does not exist yet
        }
      }
      renameSync(this.path, `${this.path}.1`)
    } catch {
      // rotation failed (file gone): start counting again
    }
    this.size = 0
  }
}

/**
 * Host log: every record goes to `<logDir>/caduceus.log`; warn/error also to `errors.log`, which is what
 * `caduceus logs errors` prints (the command memory refusals point users to). Files are 0600 in a 0700
 * folder, rotated by size; each record is one line (a stack never spills over eleven); a warning or error
 * repeated faster than `burst` per window is counted, not written, and the count is written when it calms.
 */
export function createLogger(opts: LoggerOptions = {}): HostLogger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error']
  const min = order.indexOf(opts.minLevel ?? 'info')
  const now = opts.now ?? Date.now
  const burst = opts.burst ?? 5
  const windowMs = opts.windowMs ?? 60_000
  const sinks = new Set<(record: LogRecord) => void>()
  const files: { all?: LogFile; errors?: LogFile } = {}
  const open = (path: string | undefined) => {
    if (!path) return undefined
    privateDir(dirname(path))
    return new LogFile(path, opts.maxBytes ?? 5 * 1024 * 1024, opts.keep ?? 3)
  }
  try {
    files.all = open(opts.logFile)
    files.errors = open(opts.errorFile)
  } catch {
    // an unwritable log folder must not stop the host: records still reach sinks and the console
  }
  const repeats = new Map<string, { since: number; count: number; suppressed: number }>()

  const emitLine = (level: LogLevel, name: string, message: string, at: number) => {
    const line = `${new Date(at).toISOString()} ${level.toUpperCase()} ${name}: ${message}\n`
    try {
      files.all?.append(line)
      if (level === 'warn' || level === 'error') files.errors?.append(line)
    } catch {
      // A full disk must not take the host down with it.
    }
    if (opts.console) process.stderr.write(line)
  }

  /** false when this record is one repeat too many in its window. */
  const admit = (level: LogLevel, name: string, message: string, at: number): boolean => {
    if (level !== 'warn' && level !== 'error') return true
    const key = `${level}|${name}|${message.replace(/\d+/g, '#').slice(0, 160)}`
    const r = repeats.get(key)
    if (!r || at - r.since >= windowMs) {
      if (r?.suppressed)
        emitLine(
          level,
          name,
          `(${r.suppressed} more like this in ${Math.round(windowMs / 1000)} s were not written: ${key.split('|')[2]})`,
          at
        )
      if (repeats.size > 1000) repeats.clear()
      repeats.set(key, { since: at, count: 1, suppressed: 0 })
      return true
    }
    r.count++
    if (r.count <= burst) return true
    r.suppressed++
    return false
  }

  const mask = opts.mask
  const write = (level: LogLevel, name: string, raw: string) => {
    let message = (mask ? mask.redact(String(raw)) : redact(String(raw))).replace(/\r?\n\s*/g, ' ⏎ ')
    if (message.length > MAX_MESSAGE)
      message = `${message.slice(0, MAX_MESSAGE)}… (${message.length - MAX_MESSAGE} more characters)`
    const record: LogRecord = { at: now(), level, name, message }
    for (const sink of sinks) sink(record)
    if (order.indexOf(level) < min) return
    if (!admit(level, name, message, record.at)) return
    emitLine(level, name, message, record.at)
  }
  return {
    debug: (n, m) => write('debug', n, m),
    info: (n, m) => write('info', n, m),
    warn: (n, m) => write('warn', n, m),
    error: (n, m) => write('error', n, m),
    attach(sink) {
      sinks.add(sink)
      return () => sinks.delete(sink)
    }
  }
}
