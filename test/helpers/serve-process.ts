// A real `caduceus serve` child process for cross-process tests (vitest): its own temp home, log folder, data
// folder and a tiny UI folder, so nothing needs `npm run build`.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'

const repo = resolve(import.meta.dirname, '../..')

export interface ServeProcess {
  child: ChildProcess
  port: number
  url: string
  token: string
  root: string
  /** Parent of root, logs, data and ui (rm -rf'd on close unless keepDirs). */
  base: string
  logDir: string
  dataDir: string
  uiDir: string
  stderr(): string
  alive(): boolean
  close(): Promise<void>
}

export interface ServeOptions {
  base?: string
  home?: string
  args?: string[]
  env?: Record<string, string>
  keepDirs?: boolean
}

export async function startServe(opts: ServeOptions = {}): Promise<ServeProcess> {
  const base = opts.base ?? mkdtempSync(join(tmpdir(), 'cad-serve-'))
  const root = opts.home ?? join(base, 'home')
  const logDir = join(base, 'logs')
  const dataDir = join(base, 'data')
  const uiDir = join(base, 'ui')
  mkdirSync(root, { recursive: true })
  mkdirSync(uiDir, { recursive: true })
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>ui</title>')
  const child = spawn(
    process.execPath,
    ['bin/caduceus.mjs', 'serve', '--home', root, '--port', '0', ...(opts.args ?? [])],
    {
      cwd: repo,
      env: {
        ...process.env,
        CADUCEUS_LOG_DIR: logDir,
        CADUCEUS_DATA_DIR: dataDir,
        CADUCEUS_RENDERER_DIR: uiDir,
        HERMES_HOME: '',
        ...opts.env
      },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  )
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const ready = await new Promise<{ url: string; port: number }>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 40 s:\n${stderr}`)), 40_000)
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return
      try {
        const msg = JSON.parse(line)
        if (msg.ready) {
          clearTimeout(timer)
          resolveReady(msg)
        }
      } catch {
        // not our line
      }
    })
  })
  const token = new URL(ready.url).searchParams.get('token') ?? ''
  return {
    child,
    ...ready,
    token,
    root,
    base,
    logDir,
    dataDir,
    uiDir,
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      if (!opts.keepDirs && !opts.base) rmSync(base, { recursive: true, force: true })
    }
  }
}
