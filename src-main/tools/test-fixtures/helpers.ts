/** Test helpers: a tool context, temp dirs, and wait-until loops (no timed assertions, just waiting). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ToolContext } from '../../agent'

const dirs: string[] = []

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cad-tools-'))
  dirs.push(d)
  return d
}

export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
}

export function ctxFor(over: Partial<ToolContext> = {}): ToolContext {
  return {
    profile: 'default',
    sessionId: 's1',
    turnId: 't1',
    gatewaySessionKey: 'agent:main:default:desktop:dm:s1',
    ...over
  }
}

/** True while `pid` runs. A zombie counts as dead: an orphan waits for PID 1 to reap it, which can be slow. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false // ESRCH: no such process
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true // no /proc (not Linux): kill(0) said it runs
  }
}

/** Poll until `fn` is true; the test's own timeout bounds the wait. */
export async function waitUntil(fn: () => boolean | Promise<boolean>, stepMs = 20): Promise<void> {
  while (!(await fn())) await new Promise((r) => setTimeout(r, stepMs))
}

/** Node one-liner as a shell command (JSON-quoted for the shell). */
export function nodeCmd(src: string): string {
  return `"${process.execPath}" -e ${JSON.stringify(src)}`
}
