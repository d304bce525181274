/**
 * Memory's loggers. The memory layer may not import the host, so records go to a sink its owner passes in: the host
 * hands its graph's sink (into its own log: errors.log, gateway log) to the activity hub and every agent's memory
 * build, tests pass one that captures. Records extend the kernel's LogRecord ({ at, level, name, message }).
 */
import type { LogLevel, LogRecord } from '@shared/contract/log'

/** The kernel's LogRecord (name e.g. `caduceus.memory.caller_scope`) plus memory's machine-readable fields. */
interface MemoryLogRecord extends LogRecord {
  /** Machine-readable condition (e.g. `memory_caller_profile_unresolved`); never shown to the model. */
  code?: string
  /** What was refused or failed: `hook sync_turn`, `tool memory`, `provider mem0`. */
  subject?: string
}

export type MemoryLogSink = (record: MemoryLogRecord) => void

export const CALLER_SCOPE_LOGGER = 'caduceus.memory.caller_scope'
export const MANAGER_LOGGER = 'caduceus.memory.manager'

export interface MemoryLogger {
  readonly name: string
  log(level: LogLevel, message: string, extra?: { code?: string; subject?: string }): void
  info(message: string, extra?: { code?: string; subject?: string }): void
  warn(message: string, extra?: { code?: string; subject?: string }): void
  error(message: string, extra?: { code?: string; subject?: string }): void
}

/** A logger writing to `sink`; without one (a bare script, a test that does not listen) problems go to stderr. */
export function memoryLogger(name: string, sink?: MemoryLogSink): MemoryLogger {
  const log = (level: LogLevel, message: string, extra?: { code?: string; subject?: string }) => {
    const record: MemoryLogRecord = { at: Date.now(), level, name, message, ...extra }
    if (!sink) {
      // Nobody listening (a bare script): problems still reach stderr rather than vanish.
      if (level === 'warn' || level === 'error') process.stderr.write(`${level.toUpperCase()} ${name}: ${message}\n`)
      return
    }
    try {
      sink(record)
    } catch {
      // A broken sink must not break a memory hook.
    }
  }
  return {
    name,
    log,
    info: (m, e) => log('info', m, e),
    warn: (m, e) => log('warn', m, e),
    error: (m, e) => log('error', m, e)
  }
}
