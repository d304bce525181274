/**
 * Spawning model-chosen shell commands. The child gets a minimal, allow-listed environment — never the
 * host's env (which may hold OPENAI_API_KEY and friends) and never the profile's secrets. On POSIX the
 * shell leads its own process group so a kill reaches `sleep` in `sleep 30 && echo`, not just `sh`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { getHermesHome } from '../scope'

const POSIX_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR']
const WINDOWS_ENV = [
  'Path',
  'PATH',
  'PATHEXT',
  'SystemRoot',
  'SYSTEMROOT',
  'ComSpec',
  'COMSPEC',
  'WINDIR',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'USERNAME',
  'HOMEDRIVE',
  'HOMEPATH'
]
const isWindows = process.platform === 'win32'

/**
 * The env a command runs with: a few well-known names from the host, the home of the profile whose turn
 * spawns it (read from the profile scope at spawn time, as upstream's subprocesses see their turn's
 * HERMES_HOME), plus settings that keep tools non-interactive.
 */
function minimalEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of isWindows ? WINDOWS_ENV : POSIX_ENV) {
    const v = source[name]
    if (typeof v === 'string') env[name] = v
  }
  env.HERMES_HOME = getHermesHome()
  env.TERM = 'dumb'
  env.PAGER = 'cat'
  env.GIT_PAGER = 'cat'
  env.NO_COLOR = '1'
  return env
}

export function spawnShell(command: string, cwd: string): ChildProcess {
  const child = spawn(command, {
    shell: true,
    cwd,
    env: minimalEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: !isWindows,
    windowsHide: true
  })
  child.stdout?.setEncoding('utf8')
  child.stderr?.setEncoding('utf8')
  // A spawn failure (bad cwd, no shell) arrives as 'error'; without a listener it would crash the host.
  child.on('error', () => undefined)
  return child
}

function signalTree(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return
  if (isWindows) {
    try {
      spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
        'error',
        () => undefined
      )
    } catch {
      child.kill(sig) // no taskkill to spawn: the child alone
    }
    return
  }
  try {
    process.kill(-child.pid, sig)
  } catch {
    // no such group (ESRCH: its leader exited) or not ours to signal: the child itself
    try {
      child.kill(sig)
    } catch {
      // already gone
    }
  }
}

/** Linux: whether the group has a member that is not a zombie (an orphan's zombie waits on PID 1's reaping). */
function liveMemberOnLinux(pgid: number): boolean {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return true // no /proc to read: assume a member lives, so the caller keeps waiting or signalling
  }
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8')
      // After the `(comm)` field: state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(pgrp) === pgid && state !== 'Z') return true
    } catch {
      // exited while we looked
    }
  }
  return false
}

/** True while any member of the process group `pid` led is alive (POSIX; on Windows: never). */
export function groupAlive(pid: number | undefined): boolean {
  if (isWindows || pid === undefined) return false
  try {
    process.kill(-pid, 0)
  } catch (err) {
    // EPERM: the group exists but is not ours to signal; ESRCH: nobody is left.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  return process.platform === 'linux' ? liveMemberOnLinux(pid) : true
}

/**
 * SIGTERM the process group `pid` led, wait up to `graceMs` for it to empty, then SIGKILL what is left.
 * Reaches members that outlived their leader (`server &` in a shell that has exited). Resolves at once when
 * the group is gone.
 */
export async function killGroup(pid: number | undefined, graceMs = 2000): Promise<void> {
  if (!groupAlive(pid)) return
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid!, sig)
    } catch {
      // ESRCH: gone meanwhile
    }
  }
  send('SIGTERM')
  const until = Date.now() + graceMs
  while (groupAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
  send('SIGKILL')
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** SIGTERM the whole tree, then SIGKILL whatever ignores it. Idempotent. */
export function killTree(child: ChildProcess, graceMs = 2000): void {
  signalTree(child, 'SIGTERM')
  const t = setTimeout(() => {
    // The shell may be gone while a grandchild that trapped SIGTERM lives on: hit the group regardless.
    signalTree(child, 'SIGKILL')
  }, graceMs)
  t.unref()
  if (exited(child)) return
  child.once('exit', () => {
    if (!isWindows) signalTree(child, 'SIGKILL')
    clearTimeout(t)
  })
}

/**
 * Resolves once the child exited and its pipes drained. A command that leaves a daemon holding the pipes
 * (`server &`) would keep 'close' from ever firing, so after 'exit' we wait only briefly for it.
 */
export function waitForExit(
  child: ChildProcess,
  drainMs = 250
): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  return new Promise((resolve) => {
    let settled = false
    const finish = (r: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => {
      if (settled) return
      settled = true
      resolve(r)
    }
    child.once('error', (error) => {
      if (child.pid === undefined) finish({ code: null, signal: null, error })
    })
    child.once('close', (code, signal) => finish({ code, signal }))
    child.once('exit', (code, signal) => {
      setTimeout(() => finish({ code, signal }), drainMs).unref()
    })
  })
}
