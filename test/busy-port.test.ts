// `serve` and `api` on a port someone else holds: a real CLI process each, a real listener on the port.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = resolve(import.meta.dirname, '..')
const made: string[] = []
let holder: Server
let port: number

const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** The CLI as a user runs it; resolves with how it ended, without a timeout of its own (it must end by itself). */
function cli(home: string, env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      ['bin/caduceus.mjs', ...args, '--home', home],
      { cwd: repo, env: { ...process.env, CADUCEUS_LOG_DIR: temp('cad-bp-logs-'), HERMES_HOME: '', ...env } },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr })
    )
  })
}

beforeAll(async () => {
  holder = createServer((_req, res) => res.end('taken'))
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r))
  port = (holder.address() as AddressInfo).port
})
afterAll(async () => {
  await new Promise<void>((r) => holder.close(() => r()))
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

const DEMO = 'model:\n  default: demo-model\n  provider: demo\n'

describe('a busy port', { timeout: 120_000 }, () => {
  it('serve exits 1 with one line naming the port and --port, having opened nothing in the home', async () => {
    const home = temp('cad-bp-home-')
    writeFileSync(join(home, 'config.yaml'), DEMO)
    const ui = temp('cad-bp-ui-')
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>t</title>')
    const r = await cli(home, { CADUCEUS_RENDERER_DIR: ui }, 'serve', '--port', String(port))
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`caduceus serve: port ${port} is already in use; choose another with --port N\n`)
    // No state.db, no cron lock, no token written: the scheduler and watchers never started.
    expect(readdirSync(home)).toEqual(['config.yaml'])
  })

  it('api exits 1 with one line naming the port and --port', async () => {
    const home = temp('cad-bp-home-')
    writeFileSync(join(home, 'config.yaml'), DEMO)
    const r = await cli(home, { API_SERVER_KEY: 'k-test-1234567890abcdef' }, 'api', '--port', String(port))
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`caduceus api: port ${port} is already in use; choose another with --port N\n`)
  })
})
