/**
 * The one logger shape every layer uses (the kernel, like money.ts): a `Logger` takes the logger's name per call
 * (`gateway.run`, `delegation`, …) so the host's file logger can be passed straight in; a `LogFn` is a logger already
 * bound to one name, for subsystems that log under a single name (cron, api_server, terminal, delegation registry).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export interface LogRecord {
  /** Epoch milliseconds. */
  at: number
  level: LogLevel
  name: string
  message: string
}

export interface Logger {
  debug(name: string, message: string): void
  info(name: string, message: string): void
  warn(name: string, message: string): void
  error(name: string, message: string): void
}

export type LogFn = (level: LogLevel, message: string) => void

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} }

/** A `LogFn` that writes through `log` under `name`. */
export const namedLog =
  (log: Logger, name: string): LogFn =>
  (level, message) =>
    log[level](name, message)
