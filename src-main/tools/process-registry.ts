/**
 * Per-host registry of background processes started by the terminal tool: bounded output, status, poll
 * and kill, the pending-watcher list gateway platforms read, and an in-process completion callback (the
 * CLI/desk path: it fires for every notify-enabled process, platform bound or not).
 */
import type { LogFn } from '@shared/contract/log'
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { redactValues, type SecretMask } from '../secrets'
import { OutputBuffer } from './output-buffer'
import type {
  PendingWatcher,
  ProcessCompletion,
  ProcessSnapshot,
  ProcessStatus,
  StartProcessInput
} from './process-types'
import { groupAlive, killGroup, killTree, spawnShell, waitForExit } from './spawn-shell'
import { errorMessage } from '@shared/contract/errors'

export const BACKGROUND_OUTPUT_CHARS = 64 * 1024
const COMPLETION_TAIL_CHARS = 4000
/** Finished records kept for `poll` before the oldest are forgotten. */
const MAX_FINISHED = 200

interface ProcRecord {
  id: string
  input: StartProcessInput
  child: ChildProcess
  status: ProcessStatus
  exitCode: number | null
  signal: string | null
  startedAt: number
  endedAt: number | null
  output: OutputBuffer
  error?: string
  done: Promise<ProcessSnapshot>
}

export interface ProcessRegistryOptions {
  /**
   * The host's secret mask: what a process printed is masked with it (and the turn's own secrets) before it reaches
   * the model or a notice. Without one (tests), the process's last resort.
   */
  mask?: SecretMask
  onComplete?: (c: ProcessCompletion) => void | Promise<void>
  log?: LogFn
  outputChars?: number
}

export const newProcessId = (): string => `proc_${randomBytes(6).toString('hex')}`

export class ProcessRegistry {
  /** Public like upstream's `process_registry.pending_watchers`; entries leave when their process ends. */
  pendingWatchers: PendingWatcher[] = []
  private readonly procs = new Map<string, ProcRecord>()
  private closed = false

  constructor(private readonly opts: ProcessRegistryOptions = {}) {}

  /** `text` with `secrets` (the turn's) and the host's known secret values masked, then the credential shapes. */
  redact(text: string, secrets: Iterable<string>): string {
    return this.opts.mask ? this.opts.mask.redactValues(text, secrets) : redactValues(text, secrets)
  }

  start(input: StartProcessInput): ProcessSnapshot {
    if (this.closed) throw new Error('the process registry is closed')
    const id = newProcessId()
    const child = spawnShell(input.command, input.cwd)
    const output = new OutputBuffer({ tail: this.opts.outputChars ?? BACKGROUND_OUTPUT_CHARS })
    child.stdout?.on('data', (d: string) => output.append(d))
    child.stderr?.on('data', (d: string) => output.append(d))
    const rec: ProcRecord = {
      id,
      input,
      child,
      status: 'running',
      exitCode: null,
      signal: null,
      startedAt: Date.now(),
      endedAt: null,
      output,
      done: Promise.resolve(null as never)
    }
    rec.done = waitForExit(child).then((r) => this.finish(rec, r))
    this.procs.set(id, rec)
    if (input.watcher) this.pendingWatchers.push({ ...input.watcher, processId: id })
    return this.snapshot(rec)
  }

  poll(id: string): ProcessSnapshot | null {
    const rec = this.procs.get(id)
    return rec ? this.snapshot(rec) : null
  }

  /** Resolves with the final snapshot once the process has ended (null for an unknown id). */
  wait(id: string): Promise<ProcessSnapshot | null> {
    return this.procs.get(id)?.done ?? Promise.resolve(null)
  }

  list(filter: { sessionId?: string; profile?: string } = {}): ProcessSnapshot[] {
    return [...this.procs.values()]
      .filter(
        (r) =>
          (filter.sessionId === undefined || r.input.sessionId === filter.sessionId) &&
          (filter.profile === undefined || r.input.profile === filter.profile)
      )
      .map((r) => this.snapshot(r))
  }

  /**
   * Kill a running process (no completion is delivered for it), or what an ended one left behind: a shell
   * that exited after `server &` leaves its process group alive. False when unknown or nothing is left.
   */
  kill(id: string): boolean {
    const rec = this.procs.get(id)
    if (!rec) return false
    if (rec.status !== 'running') {
      if (!groupAlive(rec.child.pid)) return false
      void killGroup(rec.child.pid)
      return true
    }
    rec.status = 'killed'
    this.dropWatcher(id)
    killTree(rec.child)
    return true
  }

  /** Hard-close path for one session (Agent.close → cleanupTask). Returns how many were killed. */
  killAllForSession(sessionId: string): number {
    let n = 0
    for (const rec of this.procs.values()) if (rec.input.sessionId === sessionId && this.kill(rec.id)) n++
    return n
  }

  /**
   * Host shutdown: kill every process group this host started, including those whose shell already exited
   * but left children, and wait for them. Later `start` calls throw.
   */
  async killAll(): Promise<void> {
    this.closed = true
    const all = [...this.procs.values()]
    const running = all.filter((r) => r.status === 'running')
    for (const rec of running) this.kill(rec.id)
    await Promise.all(running.map((r) => r.done))
    await Promise.all(all.map((r) => killGroup(r.child.pid)))
  }

  private finish(
    rec: ProcRecord,
    r: { code: number | null; signal: NodeJS.Signals | null; error?: Error }
  ): ProcessSnapshot {
    rec.endedAt = Date.now()
    rec.exitCode = r.code
    rec.signal = r.signal
    if (r.error) rec.error = r.error.message
    const byItself = rec.status === 'running'
    if (byItself) rec.status = 'exited'
    this.dropWatcher(rec.id)
    this.prune()
    if (byItself && rec.input.notify) this.complete(rec)
    return this.snapshot(rec)
  }

  private complete(rec: ProcRecord): void {
    const cb = this.opts.onComplete
    if (!cb) return
    const c: ProcessCompletion = {
      profile: rec.input.profile,
      sessionId: rec.input.sessionId,
      processId: rec.id,
      command: rec.input.command,
      exitCode: rec.exitCode,
      signal: rec.signal,
      outputTail: this.redact(rec.output.lastChars(COMPLETION_TAIL_CHARS), rec.input.secrets ?? [])
    }
    // Fire-and-forget: a slow or failing consumer must not hold up the registry.
    Promise.resolve()
      .then(() => cb(c))
      .catch((err) => this.opts.log?.('warn', `completion for ${rec.id} failed: ${errorMessage(err)}`))
  }

  private dropWatcher(id: string): void {
    if (this.pendingWatchers.some((w) => w.processId === id))
      this.pendingWatchers = this.pendingWatchers.filter((w) => w.processId !== id)
  }

  private prune(): void {
    const finished = [...this.procs.values()].filter((r) => r.status !== 'running')
    for (const r of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED))) this.procs.delete(r.id)
  }

  private snapshot(rec: ProcRecord): ProcessSnapshot {
    return {
      id: rec.id,
      command: rec.input.command,
      cwd: rec.input.cwd,
      profile: rec.input.profile,
      sessionId: rec.input.sessionId,
      pid: rec.child.pid ?? null,
      status: rec.status,
      exitCode: rec.exitCode,
      signal: rec.signal,
      startedAt: rec.startedAt,
      endedAt: rec.endedAt,
      notify: rec.input.notify,
      output: rec.output.text(),
      truncated: rec.output.truncated,
      ...(rec.error ? { error: rec.error } : {})
    }
  }
}
