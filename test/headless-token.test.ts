// Issue 10 item 7: the headless token survives a restart (so an open tab reconnects), lives 0600 in a 0700 data
// folder, and `--rotate-token` replaces it; `caduceus --help` / `-h` exit 0 with the usage.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { rawRequest } from './helpers/raw-http'
import { startServe } from './helpers/serve-process'

const run = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
const base = mkdtempSync(join(tmpdir(), 'cad-token-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const upgrade = (port: number, token: string) =>
  rawRequest(
    port,
    `GET /ws?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    1500
  )

describe('stable headless token', () => {
  it('an open tab reconnects after a restart; --rotate-token signs it out', async () => {
    const first = await startServe({ base })
    const { port, token } = first
    const mode = (p: string) => statSync(p).mode & 0o777
    expect(mode(join(first.dataDir, 'headless-token'))).toBe(0o600)
    expect(mode(first.dataDir)).toBe(0o700)
    await first.close()

    // Same port, same data folder: the tab's token (kept in its sessionStorage) still opens the WebSocket.
    const second = await startServe({ base, args: ['--port', String(port)] })
    try {
      expect(second.token).toBe(token)
      expect((await upgrade(port, token)).status).toBe(101)
    } finally {
      await second.close()
    }

    const third = await startServe({ base, args: ['--port', String(port), '--rotate-token'] })
    try {
      expect(third.token).not.toBe(token)
      expect((await upgrade(port, token)).status).toBe(401)
      expect((await upgrade(port, third.token)).status).toBe(101)
    } finally {
      await third.close()
    }
  }, 120_000)
})

describe('caduceus --help', () => {
  it.each([['--help'], ['-h']])('%s exits 0 with the usage', async (...args) => {
    const { stdout } = await run(process.execPath, ['bin/caduceus.mjs', ...args], { cwd: repo })
    expect(stdout).toContain('caduceus serve')
  })
})
