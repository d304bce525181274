/**
 * The gateway logs through this small interface (structurally the host logger's), so tests can capture
 * records and the lead can route them to the host log. Logger names follow upstream (`gateway.run`).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export interface GatewayLogger {
  debug(name: string, message: string): void
  info(name: string, message: string): void
  warn(name: string, message: string): void
  error(name: string, message: string): void
}

export interface CapturedRecord {
  level: LogLevel
  name: string
  message: string
}

export const silentLogger: GatewayLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** A logger that keeps every record in memory (tests, the bench). */
export function captureLogger(): GatewayLogger & { records: CapturedRecord[] } {
  const records: CapturedRecord[] = []
  const at = (level: LogLevel) => (name: string, message: string) => void records.push({ level, name, message })
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
