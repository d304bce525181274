/** One foreground command: bounded output, a timeout and the turn's abort signal both kill the whole tree. */
import { OutputBuffer } from './output-buffer'
import { killTree, spawnShell, waitForExit } from './spawn-shell'

/** Head + tail kept for the model: the start shows what ran, the end usually holds the error. */
export const FOREGROUND_HEAD_CHARS = 8_000
export const FOREGROUND_TAIL_CHARS = 22_000

export interface ForegroundResult {
  exitCode: number | null
  signal: string | null
  output: string
  truncated: boolean
  timedOut: boolean
  aborted: boolean
  spawnError?: string
}

export async function runForeground(
  command: string,
  opts: { cwd: string; timeoutMs: number; signal?: AbortSignal }
): Promise<ForegroundResult> {
  const output = new OutputBuffer({ head: FOREGROUND_HEAD_CHARS, tail: FOREGROUND_TAIL_CHARS })
  if (opts.signal?.aborted)
    return { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, aborted: true }
  const child = spawnShell(command, opts.cwd)
  child.stdout?.on('data', (d: string) => output.append(d))
  child.stderr?.on('data', (d: string) => output.append(d))
  let timedOut = false
  let aborted = false
  const timer = setTimeout(() => {
    timedOut = true
    killTree(child)
  }, opts.timeoutMs)
  const onAbort = () => {
    aborted = true
    killTree(child)
  }
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const r = await waitForExit(child)
    return {
      exitCode: r.code,
      signal: r.signal,
      output: output.text(),
      truncated: output.truncated,
      timedOut,
      aborted,
      ...(r.error ? { spawnError: r.error.message } : {})
    }
  } finally {
    clearTimeout(timer)
    opts.signal?.removeEventListener('abort', onAbort)
  }
}
