/**
 * Process identity for recovery: a pid alone can be reused after a crash, so the owner row also stores
 * the process start time (Linux `/proc/<pid>/stat` field 22, clock ticks since boot). Elsewhere the start
 * time is null and only liveness is checked.
 */
import { readFileSync } from 'node:fs'

export function processStartTime(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // comm (field 2) may contain spaces and parens: split after the LAST ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(rest[19])
    return Number.isFinite(ticks) ? ticks : null
  } catch {
    return null // no /proc (not Linux) or the process is gone: no start time (above)
  }
}

let own: number | null | undefined
export function ownStartTime(): number | null {
  if (own === undefined) own = processStartTime(process.pid)
  return own
}

export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists, we just may not signal it.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The recorded owner is gone: dead pid, or the pid now belongs to a process that started at another time. */
export function ownerIsGone(pid: number | null, startedAt: number | null): boolean {
  if (pid === null || pid === undefined) return false
  if (!isPidAlive(pid)) return true
  if (startedAt === null || startedAt === undefined) return false
  const now = processStartTime(pid)
  return now !== null && now !== startedAt
}
