// A cron job's script as a real child process: the timeout reaches what the script is waiting on, a child it
// leaves running does not hold the job, an outside kill is not a timeout, output is UTF-8 and bounded, and the
// script sees its profile's home.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EnvFileVault } from '../secrets'
import { runJobScript, wakesAgent } from './job-script'

const made: string[] = []
const strays: number[] = []
afterEach(() => {
  for (const pid of strays.splice(0))
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A profile home holding `scripts/<name>`, with `cron.script_timeout_seconds` when given. */
function homeWith(name: string, body: string, timeoutS?: number): string {
  const home = mkdtempSync(join(tmpdir(), 'cad-cron-script-'))
  made.push(home)
  mkdirSync(join(home, 'scripts'))
  writeFileSync(join(home, 'scripts', name), body)
  if (timeoutS !== undefined) writeFileSync(join(home, 'config.yaml'), `cron:\n  script_timeout_seconds: ${timeoutS}\n`)
  return home
}

async function pidIn(file: string): Promise<number> {
  while (!existsSync(file) || !readFileSync(file, 'utf8').trim()) await new Promise((r) => setTimeout(r, 10))
  const pid = Number(readFileSync(file, 'utf8'))
  strays.push(pid)
  return pid
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false // ESRCH: no such process
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return true // no /proc (not Linux): kill(0) said it runs
  }
}

const vault = new EnvFileVault()
const posix = process.platform !== 'win32'

describe.runIf(posix)('cron job scripts as child processes', () => {
  it('a timeout kills the script and what it waits on, and says it timed out', { timeout: 5000 }, async () => {
    const home = homeWith('slow.sh', 'echo started\nsleep 30 &\necho $! > sleep.pid\nwait $!\necho done\n', 0.3)
    const t0 = Date.now()
    const r = await runJobScript(home, 'slow.sh', vault)
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(r).toEqual({ ok: false, output: `Script timed out after 0.3s: ${join(home, 'scripts', 'slow.sh')}` })
    const sleep = await pidIn(join(home, 'scripts', 'sleep.pid'))
    const until = Date.now() + 1000
    while (alive(sleep) && Date.now() < until) await new Promise((r) => setTimeout(r, 10))
    expect(alive(sleep)).toBe(false)
  })

  it('a script that exits leaving a child running is done when it exits', { timeout: 5000 }, async () => {
    const home = homeWith('daemon.sh', 'sleep 30 &\necho "launched $!"\n')
    const t0 = Date.now()
    const r = await runJobScript(home, 'daemon.sh', vault)
    const pid = Number(/launched (\d+)/.exec(r.output)?.[1])
    strays.push(pid)
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(r.ok).toBe(true)
    expect(r.output).toMatch(/^launched \d+$/)
  })

  it('a script killed from outside reports the signal, not a timeout', { timeout: 5000 }, async () => {
    const home = homeWith('victim.sh', 'echo $$ > self.pid\nexec sleep 30\n')
    const run = runJobScript(home, 'victim.sh', vault)
    process.kill(await pidIn(join(home, 'scripts', 'self.pid')), 'SIGKILL')
    expect(await run).toEqual({ ok: false, output: 'Script exited with code -9' })
  })

  it('non-ASCII output split across chunks stays intact; a flood keeps its head and tail', async () => {
    const py = 'import sys\nsys.stdout.write("\\u20ac" * 300000)\nprint()\nprint(\'{"wakeAgent": false}\')\n'
    const r = await runJobScript(homeWith('utf.py', py), 'utf.py', vault)
    expect(r.ok).toBe(true)
    expect(r.output).not.toContain('\uFFFD')
    expect(r.output.startsWith('€'.repeat(20_000))).toBe(true)
    expect(r.output).toMatch(/chars omitted/)
    expect(r.output.length).toBeLessThan(101_000)
    // The gate line comes last, so the bound keeps it.
    expect(wakesAgent(r.output)).toBe(false)
  })

  it("the script sees its profile's home as HERMES_HOME, not the host's", async () => {
    const prev = process.env.HERMES_HOME
    process.env.HERMES_HOME = join(tmpdir(), 'some-other-root')
    try {
      const home = homeWith('home.sh', 'echo "home=[$HERMES_HOME]"\n')
      const r = await runJobScript(home, 'home.sh', vault)
      expect(r).toEqual({ ok: true, output: `home=[${home}]` })
    } finally {
      if (prev === undefined) delete process.env.HERMES_HOME
      else process.env.HERMES_HOME = prev
    }
  })
})
