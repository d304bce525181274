// The CLI in the test's own process: runCli (what bin/caduceus.mjs calls) on `home`, with what it prints caught —
// a verb's output and exit code without a process start each. The console (formatted as Node's prints it) and direct
// writes to the process's streams are both caught, so "stdout holds only the reply" is checked as on a child's stdout.
import { format } from 'node:util'
import { vi } from 'vitest'
import { parseArgs } from '../../src-main/host/cli/args'
import { runCli } from '../../src-main/host/cli/main'
import { sessions as sessionsCli } from '../../src-main/host/cli/sessions'

export async function cliInProcess(
  home: string,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = []
  const err: string[] = []
  const line =
    (to: string[]) =>
    (...a: unknown[]) =>
      void to.push(`${a.length ? format(a[0], ...a.slice(1)) : ''}\n`)
  const write = (to: string[]) => (chunk: string | Uint8Array) => {
    to.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    return true
  }
  const spies = [
    vi.spyOn(console, 'log').mockImplementation(line(out)),
    vi.spyOn(console, 'info').mockImplementation(line(out)),
    vi.spyOn(console, 'error').mockImplementation(line(err)),
    vi.spyOn(console, 'warn').mockImplementation(line(err)),
    vi.spyOn(process.stdout, 'write').mockImplementation(write(out) as typeof process.stdout.write),
    vi.spyOn(process.stderr, 'write').mockImplementation(write(err) as typeof process.stderr.write)
  ]
  try {
    const code = await runCli([...argv, '--home', home])
    return { code, stdout: out.join(''), stderr: err.join('') }
  } finally {
    for (const s of spies) s.mockRestore()
  }
}

/**
 * `caduceus sessions <argv> --home H` through the sessions verb itself, its two outputs apart: what went straight to
 * stdout (an export's records) and what it printed through the console (the lines a person reads).
 */
export async function sessionsCliApart(
  home: string,
  argv: string[]
): Promise<{ code: number; stdout: string; printed: string }> {
  const out: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation(() => {})
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
    out.push(String(c))
    return true
  })
  try {
    const code = await sessionsCli(parseArgs(['sessions', ...argv, '--home', home]))
    return { code, stdout: out.join(''), printed: log.mock.calls.map((c) => `${String(c[0])}\n`).join('') }
  } finally {
    log.mockRestore()
    write.mockRestore()
  }
}
