import type { LogLevel, Logger } from '@shared/contract/log'

export interface CapturedRecord {
  level: LogLevel
  name: string
  message: string
}

/** A logger that keeps every record in memory (tests, the bench). */
export function captureLogger(): Logger & { records: CapturedRecord[] } {
  const records: CapturedRecord[] = []
  const at = (level: LogLevel) => (name: string, message: string) => void records.push({ level, name, message })
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
