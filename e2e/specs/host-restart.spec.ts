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

test('while the host is down the Gateway page says its channels are stale once, not a toast per poll', async ({
  page
}) => {
  test.setTimeout(120_000)
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-restart-'))
  const template = process.env.CADUCEUS_E2E_DEMO_TEMPLATE
  if (template) cpSync(template, home, { recursive: true })
  const logs = mkdtempSync(join(tmpdir(), 'cad-e2e-restart-logs-'))
  const env = { CADUCEUS_LOG_DIR: logs, CADUCEUS_DATA_DIR: join(logs, 'data') }
  let host: SpawnedHost | null = await spawnHost({
    args: ['bin/caduceus.mjs', 'serve', '--home', home, '--port', '0', '--demo'],
    env
  })
  let holder: Server | null = null
  try {
    // the page's timers run on a clock the test moves: minutes of polling in a moment
    await page.clock.install()
    const shell = new AppShell(page)
    await shell.open(host.url)
    await page.evaluate(() => {
      location.hash = '#/gateway'
    })
    await expect(page.getByTestId('gateway-channels')).toBeVisible()
    // count every error toast that appears, however briefly
    await page.evaluate(() => {
      const w = window as unknown as { channelToasts: number }
      w.channelToasts = 0
      new MutationObserver((records) => {
        for (const r of records)
          for (const n of r.addedNodes)
            if (n instanceof HTMLElement && n.textContent?.includes('Loading channels')) w.channelToasts++
      }).observe(document.body, { childList: true, subtree: true })
    })
    const port = host.port
    await host.stop()
    host = null
    holder = await holdPort(port)
    await expect(shell.connection).not.toHaveAttribute('data-state', 'connected', { timeout: 20_000 })
    // two minutes of the page's time: 24 polls at 5 s, each waiting out the 15 s connect timeout
    for (let i = 0; i < 24; i++) await page.clock.runFor(5_000)
    const toasts = await page.evaluate(() => (window as unknown as { channelToasts: number }).channelToasts)
    expect(toasts).toBeLessThanOrEqual(1)
    // what it last read stays on screen
    await expect(page.getByTestId('channel-cron')).toBeVisible()
  } finally {
    if (holder) await new Promise((r) => holder!.close(r))
    await host?.stop()
    rmSync(home, { recursive: true, force: true })
    rmSync(logs, { recursive: true, force: true })
  }
})
