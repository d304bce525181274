/**
 * A cron job's `script` (upstream rules): it must resolve inside `<profile home>/scripts/` (relative paths are
 * read from there, absolute ones must land there too), `.sh`/`.bash` run with bash and anything else with python3,
 * in the script's own folder, with the profile's secrets kept out of its environment, bounded by
 * `cron.script_timeout_seconds` (default one hour). stdout (trimmed) is the result; a non-zero exit is a failure
 * carrying the exit code, stderr and stdout.
 *
 * The script leads its own process group: a timeout kills the group, so a `sleep` it is waiting on dies
 * with it. A script that exits leaving a child that holds its pipes (`server &`) is done when it exits (plus
 * a short drain); upstream waits on those pipes until its timeout instead. Output is decoded as UTF-8
 * across chunk boundaries and bounded (head + tail kept; the tail holds the wake gate line).
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { existsSync, statSync } from 'node:fs'
import { dirname, extname, resolve } from 'node:path'
import { loadConfig, readSection } from '../config'
import { secretsFor, type SecretVault } from '../secrets'
import { killTree, OutputBuffer, waitForExit } from '../tools'
import { parseJsonOr } from '@shared/contract/errors'
import { scriptPath } from './job-fields'

export interface ScriptResult {
  ok: boolean
  output: string
}

const DEFAULT_TIMEOUT_S = 3600
/** Per stream: the first and last chars kept of a chatty script's output. */
const SCRIPT_HEAD_CHARS = 20_000
const SCRIPT_TAIL_CHARS = 80_000
const SECRETISH = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i

function timeoutSeconds(home: string): number {
  const n = Number(readSection(loadConfig(home).raw, 'cron').script_timeout_seconds)
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_TIMEOUT_S
}

/** The script's real path when it lies inside the scripts folder, else why it may not run. */
export function resolveScript(home: string, script: string): { path: string } | { error: string } {
  const { root, path, inside } = scriptPath(home, script)
  if (!inside)
    return { error: `Blocked: script path resolves outside the scripts directory (${root}): ${JSON.stringify(script)}` }
  if (!existsSync(path)) return { error: `Script not found: ${path}` }
  if (!statSync(path).isFile()) return { error: `Script path is not a file: ${path}` }
  return { path }
}

export async function runJobScript(home: string, script: string, vault: SecretVault): Promise<ScriptResult> {
  const target = resolveScript(home, script)
  if ('error' in target) return { ok: false, output: target.error }
  const ext = extname(target.path).toLowerCase()
  const argv = ext === '.sh' || ext === '.bash' ? ['bash', target.path] : ['python3', target.path]
  const secrets = Object.values(secretsFor(home, vault)).filter((v) => typeof v === 'string' && v.length >= 6)
  // The script gets the process environment minus anything that looks like a credential, and the home of
  // the profile it runs for.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SECRETISH.test(k)))
  env.HERMES_HOME = resolve(home)
  const limit = timeoutSeconds(home)
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: dirname(target.path),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true
  })
  const stdout = new OutputBuffer({ head: SCRIPT_HEAD_CHARS, tail: SCRIPT_TAIL_CHARS })
  const stderr = new OutputBuffer({ head: SCRIPT_HEAD_CHARS, tail: SCRIPT_TAIL_CHARS })
  child.stdout.setEncoding('utf8').on('data', (d: string) => stdout.append(d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => stderr.append(d))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    killTree(child, 0)
  }, limit * 1000)
  const r = await waitForExit(child)
  clearTimeout(timer)
  // A child the script left running may still hold the pipes; stop listening to it.
  child.stdout.destroy()
  child.stderr.destroy()
  if (r.error) return { ok: false, output: `Script execution failed: ${r.error.message}` }
  if (timedOut) return { ok: false, output: `Script timed out after ${limit}s: ${target.path}` }
  const out = vault.mask.redactValues(stdout.text().trim(), secrets)
  const err = vault.mask.redactValues(stderr.text().trim(), secrets)
  // Killed from outside: report the signal the way upstream's returncode does (negative signal number).
  const code = r.code ?? (r.signal ? -(constants.signals[r.signal] ?? 0) : null)
  if (code !== 0) {
    const parts = [`Script exited with code ${code}`]
    if (err) parts.push(`stderr:\n${err}`)
    if (out) parts.push(`stdout:\n${out}`)
    return { ok: false, output: parts.join('\n') }
  }
  return { ok: true, output: out }
}

/** Upstream's wake gate: a last stdout line `{"wakeAgent": false}` means "nothing to do this time". */
export function wakesAgent(output: string): boolean {
  const last = output
    .split('\n')
    .filter((l) => l.trim())
    .at(-1)
  if (!last) return true
  const gate = parseJsonOr(last.trim(), null) // a last line that is not JSON wakes the agent, as upstream
  return !(gate && typeof gate === 'object' && (gate as { wakeAgent?: unknown }).wakeAgent === false)
}
