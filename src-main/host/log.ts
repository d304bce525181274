import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { redact } from '../config'

export type Level = 'debug' | 'info' | 'warn' | 'error'
export interface LogRecord { at: number; level: Level; name: string; message: string }
export interface Logger {
  debug(name: string, message: string): void
  info(name: string, message: string): void
  warn(name: string, message: string): void
  error(name: string, message: string): void
  /** Attach a sink (tests, the gateway log view). Returns a detach function. */
  attach(sink: (record: LogRecord) => void): () => void
}

// Anything that looks like a key is masked before it reaches a file or a console (one redactor: config's).
export { redact }

/**
 * Host log: every record goes to `<logDir>/caduceus.log`; warn/error also to `errors.log`, which is what
 * `caduceus logs errors` prints (the command memory refusals point users to).
 */
export function createLogger(opts: { logFile?: string; errorFile?: string; console?: boolean; minLevel?: Level } = {}): Logger {
  const order: Level[] = ['debug', 'info', 'warn', 'error']
  const min = order.indexOf(opts.minLevel ?? 'info')
  const sinks = new Set<(record: LogRecord) => void>()
  for (const file of [opts.logFile, opts.errorFile]) if (file) mkdirSync(dirname(file), { recursive: true })
  const write = (level: Level, name: string, raw: string) => {
    const record: LogRecord = { at: Date.now(), level, name, message: redact(raw) }
    for (const sink of sinks) sink(record)
    if (order.indexOf(level) < min) return
    const line = `${new Date(record.at).toISOString()} ${level.toUpperCase()} ${name}: ${record.message}\n`
    try {
      if (opts.logFile) appendFileSync(opts.logFile, line)
      if (opts.errorFile && (level === 'warn' || level === 'error')) appendFileSync(opts.errorFile, line)
    } catch {
      // A full disk must not take the host down with it.
    }
    if (opts.console) process.stderr.write(line)
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
