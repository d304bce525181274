/**
 * Memory's loggers. The memory layer may not import the host, so records go to attachable sinks; the host
 * attaches one that writes them into its own log (errors.log, gateway log), tests attach one to capture them.
 * Records extend the kernel's LogRecord ({ at, level, name, message }).
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

const sinks = new Set<MemoryLogSink>()

/** Attach a sink for every memory log record. Returns a detach function. */
export function addMemoryLogSink(sink: MemoryLogSink): () => void {
  sinks.add(sink)
  return () => {
    sinks.delete(sink)
  }
}

export interface MemoryLogger {
  readonly name: string
  log(level: LogLevel, message: string, extra?: { code?: string; subject?: string }): void
  info(message: string, extra?: { code?: string; subject?: string }): void
  warn(message: string, extra?: { code?: string; subject?: string }): void
  error(message: string, extra?: { code?: string; subject?: string }): void
}

export function memoryLogger(name: string): MemoryLogger {
  const log = (level: LogLevel, message: string, extra?: { code?: string; subject?: string }) => {
    const record: MemoryLogRecord = { at: Date.now(), level, name, message, ...extra }
    if (sinks.size === 0) {
      // Nobody attached (a bare script): problems still reach stderr rather than vanish.
      if (level === 'warn' || level === 'error') process.stderr.write(`${level.toUpperCase()} ${name}: ${message}\n`)
      return
    }
    for (const sink of [...sinks]) {
      try {
        sink(record)
      } catch {
        // A broken sink must not break a memory hook.
      }
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
