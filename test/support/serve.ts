/**
 * One way to start a real host child process and wait for its ready line (`{"ready":true,"url":…,"port":…}` on
 * stdout), shared by the vitest cross-process tests (test/helpers/serve-process.ts, test/fixtures/serve-host.ts)
 * and Playwright (e2e/fixtures/host.ts). Node built-ins only, so both runners load it as it is.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'

export const repo = resolve(import.meta.dirname, '../..')

export interface SpawnedHost {
  child: ChildProcess
  url: string
  port: number
  /** The `token` query parameter of the ready URL ('' when it has none). */
  token: string
  stderr(): string
  alive(): boolean
  /** SIGTERM, then SIGKILL if it has not exited within 5 s. Safe to call twice. */
  stop(): Promise<void>
}

export interface SpawnHostOptions {
  /** Arguments after `node` (run from the repository root). */
  args: string[]
  /** Merged over the parent's environment; HERMES_HOME is cleared unless given, so no test reads the user's. */
  env?: NodeJS.ProcessEnv
  /** What the error says failed to start, e.g. `serve`. */
  name?: string
  startTimeoutMs?: number
  /** Run as another user (root only): a home that user may read but not write (the read-copy bench). */
  user?: { uid: number; gid: number }
}

export async function spawnHost(opts: SpawnHostOptions): Promise<SpawnedHost> {
  const name = opts.name ?? 'host'
  const timeoutMs = opts.startTimeoutMs ?? 45_000
  const child = spawn(process.execPath, opts.args, {
    cwd: repo,
    env: { ...process.env, HERMES_HOME: '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts.user
  })
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const alive = () => child.exitCode === null && child.signalCode === null
  const stop = async () => {
    if (!alive()) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    if (alive()) child.kill('SIGKILL')
  }
  const ready = await new Promise<{ url: string; port: number }>((resolveReady, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name} did not start in ${Math.round(timeoutMs / 1000)} s:\n${stderr}`))
      void stop()
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code}:\n${stderr}`))
    })
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return
      try {
        const msg = JSON.parse(line) as { ready?: boolean; url: string; port: number }
        if (msg.ready) {
          clearTimeout(timer)
          resolveReady(msg)
        }
      } catch {
        // not the ready line
      }
    })
  })
  const token = new URL(ready.url).searchParams.get('token') ?? ''
  return { child, url: ready.url, port: ready.port, token, stderr: () => stderr, alive, stop }
}
