/**
 * A cron job's `script` (upstream rules): it must resolve inside `<profile home>/scripts/` (relative paths are
 * read from there, absolute ones must land there too), `.sh`/`.bash` run with bash and anything else with python3,
 * in the script's own folder, with the profile's secrets kept out of its environment, bounded by
 * `cron.script_timeout_seconds` (default one hour). stdout (trimmed) is the result; a non-zero exit is a failure
 * carrying the exit code, stderr and stdout.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path'
import { loadConfig, readSection } from '../config'
import { redactValues, secretsFor, type SecretVault } from '../secrets'

export interface ScriptResult {
  ok: boolean
  output: string
}

const DEFAULT_TIMEOUT_S = 3600
const SECRETISH = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i

function timeoutSeconds(home: string): number {
  const n = Number(readSection(loadConfig(home).raw, 'cron').script_timeout_seconds)
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_TIMEOUT_S
}

/** The script's real path when it lies inside the scripts folder, else why it may not run. */
export function resolveScript(home: string, script: string): { path: string } | { error: string } {
  const dir = join(home, 'scripts')
  mkdirSync(dir, { recursive: true })
  const root = realpathSync(dir)
  const raw = script.startsWith('~') ? join(homedir(), script.slice(1)) : script
  let path = isAbsolute(raw) ? resolve(raw) : resolve(root, raw)
  if (existsSync(path)) path = realpathSync(path)
  const rel = relative(root, path)
  if (rel.startsWith('..') || isAbsolute(rel))
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
  // The script gets the process environment minus anything that looks like a credential.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SECRETISH.test(k)))
  const limit = timeoutSeconds(home)
  return new Promise<ScriptResult>((done) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: dirname(target.path), env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), limit * 1000)
    child.once('error', (err) => {
      clearTimeout(timer)
      done({ ok: false, output: `Script execution failed: ${err.message}` })
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      const out = redactValues(stdout.trim(), secrets)
      const err = redactValues(stderr.trim(), secrets)
      if (signal === 'SIGKILL') return done({ ok: false, output: `Script timed out after ${limit}s: ${target.path}` })
      if (code !== 0) {
        const parts = [`Script exited with code ${code}`]
        if (err) parts.push(`stderr:\n${err}`)
        if (out) parts.push(`stdout:\n${out}`)
        return done({ ok: false, output: parts.join('\n') })
      }
      done({ ok: true, output: out })
    })
  })
}

/** Upstream's wake gate: a last stdout line `{"wakeAgent": false}` means "nothing to do this time". */
export function wakesAgent(output: string): boolean {
  const last = output
    .split('\n')
    .filter((l) => l.trim())
    .at(-1)
  if (!last) return true
  try {
    const gate = JSON.parse(last.trim()) as unknown
    return !(gate && typeof gate === 'object' && (gate as { wakeAgent?: unknown }).wakeAgent === false)
  } catch {
    return true
  }
}
