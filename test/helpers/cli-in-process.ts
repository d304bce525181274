// The CLI in the test's own process: runCli (what bin/caduceus.mjs calls) on `home`, with the lines it prints
// through the console caught — a verb's output and exit code without a process start each.
import { vi } from 'vitest'
import { runCli } from '../../src-main/host/cli/main'

export async function cliInProcess(
  home: string,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = []
  const err: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.join(' ')}\n`))
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.join(' ')}\n`))
  try {
    const code = await runCli([...argv, '--home', home])
    return { code, stdout: out.join(''), stderr: err.join('') }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}
