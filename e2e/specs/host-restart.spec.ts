import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { test, expect } from '@playwright/test'
import { spawnHost, type SpawnedHost } from '../../test/support/serve'
import { AppShell } from '../page-models/app-shell'

test('a page first opened while the host is down loads once the host is back, no reload', async ({ page }) => {
  test.setTimeout(120_000)
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-restart-'))
  // the run's demo home (global-setup.ts), copied: `--demo` on a root that has a state.db serves it as it is
  const template = process.env.CADUCEUS_E2E_DEMO_TEMPLATE
  if (template) cpSync(template, home, { recursive: true })
  const logs = mkdtempSync(join(tmpdir(), 'cad-e2e-restart-logs-'))
  // the same data folder both times: the headless token is stable across restarts, so the tab's URL stays valid
  const env = { CADUCEUS_LOG_DIR: logs, CADUCEUS_DATA_DIR: join(logs, 'data') }
  const serve = (port: number, demo: boolean) =>
    spawnHost({
      args: ['bin/caduceus.mjs', 'serve', '--home', home, '--port', String(port), ...(demo ? ['--demo'] : [])],
      env
    })
  let host: SpawnedHost | null = await serve(0, true)
  try {
    const shell = new AppShell(page)
    await shell.open(host.url)
    const port = host.port
    await host.stop()
    // While the host is down its port is held by a listener that resets every connection (as a dead host's fail):
    // a freed port could otherwise go to another test's `--port 0` host, and the tab would talk to that one.
    const holder = await holdPort(port)
    await expect(shell.connection).not.toHaveAttribute('data-state', 'connected', { timeout: 20_000 })

    // the Costs page's code is a chunk of its own, never fetched before: it cannot load now, and says why
    await page.getByTestId('nav-costs').click()
    const failed = page.getByTestId('page-load-failed')
    await expect(failed).toContainText('The Costs page could not be loaded')
    await expect(failed).toContainText('loads by itself once the host is back')

    await new Promise((r) => holder.close(r))
    host = await serve(port, false)
    await expect(shell.connection).toHaveAttribute('data-state', 'connected', { timeout: 30_000 })
    await expect(failed).toHaveCount(0)
    await expect(page.getByTestId('costs-export-csv')).toBeVisible()
  } finally {
    await host?.stop()
    rmSync(home, { recursive: true, force: true })
    rmSync(logs, { recursive: true, force: true })
  }
})

function holdPort(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy())
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}
