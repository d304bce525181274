/** `npx tsx scripts/screenshots.ts`: README screenshots from a fresh --demo host (needs `npm run build`). */
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { chromium } from '@playwright/test'
import { startHost } from '../e2e/fixtures/host'

const out = resolve(import.meta.dirname, '..', 'resources', 'screenshots')
mkdirSync(out, { recursive: true })
const host = await startHost()
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu']
})
try {
  const shot = async (
    theme: 'light' | 'dark',
    hash: string,
    name: string,
    act?: (p: import('@playwright/test').Page) => Promise<void>
  ) => {
    const page = await browser.newPage({ viewport: { width: 1180, height: 720 } })
    await page.addInitScript((t) => localStorage.setItem('caduceus.theme', t), theme)
    await page.goto(host.url.replace(/#.*$/, '') + hash)
    await page.locator('[data-testid="connection-indicator"][data-state="connected"]').waitFor()
    await act?.(page)
    await page.waitForTimeout(600)
    await page.screenshot({ path: join(out, name) })
    await page.close()
  }
  const u = new URL(host.url)
  const list = await (
    await fetch(`${u.origin}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.searchParams.get('token')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sessions.list', input: { profile: 'work', limit: 5 } })
    })
  ).json()
  const s = list.output.items.find((x: { title: string | null }) => x.title)
  await shot('light', `#/session/work/${s.id}`, 'transcript-markdown.png', async (p) => {
    await p.locator('.markdown table').first().waitFor()
  })
  await shot('dark', '#/sessions', 'palette-dark.png', async (p) => {
    await p.getByTestId('session-row').first().waitFor()
    await p.keyboard.press('Control+k')
    await p.getByTestId('palette-input').fill('co')
  })
  await shot('light', '#/costs', 'costs.png', async (p) => {
    await p.getByTestId('costs-chart').waitFor()
  })
} finally {
  await browser.close()
  await host.close()
}
