// A real `caduceus serve` child process for cross-process tests (vitest): its own temp home, log folder, data
// folder and a tiny UI folder, so nothing needs `npm run build`.
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnHost } from '../support/serve'

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
  env?: NodeJS.ProcessEnv
  keepDirs?: boolean
  startTimeoutMs?: number
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
  const host = await spawnHost({
    args: ['bin/caduceus.mjs', 'serve', '--home', root, '--port', '0', ...(opts.args ?? [])],
    name: 'serve',
    startTimeoutMs: opts.startTimeoutMs ?? 40_000,
    env: { CADUCEUS_LOG_DIR: logDir, CADUCEUS_DATA_DIR: dataDir, CADUCEUS_RENDERER_DIR: uiDir, ...opts.env }
  })
  return {
    child: host.child,
    port: host.port,
    url: host.url,
    token: host.token,
    root,
    base,
    logDir,
    dataDir,
    uiDir,
    stderr: host.stderr,
    alive: host.alive,
    async close() {
      await host.stop()
      if (!opts.keepDirs && !opts.base) rmSync(base, { recursive: true, force: true })
    }
  }
}
