/**
 * README screenshots: `npm run build && npx tsx scripts/screenshots.ts` (not part of npm test). Starts
 * `caduceus serve --demo` on a fresh temp home and captures the main pages in the light theme at 1360×860 into
 * docs/screenshots/*.png (plus the palette in dark). Re-run after a UI change and commit the PNGs.
 */
import { mkdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { chromium, type Page } from '@playwright/test'
import { startHost } from '../e2e/fixtures/host'
import { api } from '../e2e/fixtures/external'

const out = resolve(import.meta.dirname, '..', 'docs', 'screenshots')
/** The README links these; keep each small so the repository stays light. */
const MAX_BYTES = 300 * 1024
mkdirSync(out, { recursive: true })
const host = await startHost()
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu']
})
try {
  const shot = async (theme: 'light' | 'dark', hash: string, name: string, ready: (p: Page) => Promise<void>) => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } })
    await page.addInitScript((t) => localStorage.setItem('caduceus.theme', t), theme)
    await page.goto(host.url.replace(/#.*$/, '') + hash)
    await page.locator('[data-testid="connection-indicator"][data-state="connected"]').waitFor()
    await ready(page)
    await page
      .locator('[aria-busy="true"]')
      .first()
      .waitFor({ state: 'detached' })
      .catch(() => {})
    // let web fonts, charts and relative times settle before the capture
    await page.evaluate(() => document.fonts.ready)
    await page.waitForTimeout(400)
    const path = join(out, name)
    await page.screenshot({ path })
    await page.close()
    const size = statSync(path).size
    console.log(`${name}  ${(size / 1024).toFixed(0)} KB`)
    if (size > MAX_BYTES) throw new Error(`${name} is ${size} bytes (> ${MAX_BYTES})`)
  }
  const list = await api<{ items: Array<{ id: string; title: string | null }> }>(host.url, 'sessions.list', {
    profile: 'work',
    limit: 10
  })
  const s = list.items.find((x) => x.title) ?? list.items[0]!
  await shot('light', '#/sessions', 'sessions.png', async (p) => {
    await p.getByTestId('session-row').nth(5).waitFor()
    // show the bulk selection: click one row's box, shift-click another
    await p.getByTestId('row-select').nth(1).click()
    await p
      .getByTestId('row-select')
      .nth(3)
      .click({ modifiers: ['Shift'] })
    await p.getByTestId('selection-bar').waitFor()
  })
  await shot('light', `#/session/work/${s.id}`, 'session.png', async (p) => {
    await p.locator('.markdown table').first().waitFor()
  })
  await shot('light', '#/costs', 'costs.png', async (p) => {
    await p.getByTestId('costs-chart').waitFor()
  })
  await shot('light', '#/subagents', 'subagents.png', async (p) => {
    await p.getByTestId('subagent-row').first().waitFor()
  })
  await shot('light', '#/memory', 'memory.png', async (p) => {
    await p.getByTestId('profile-rail-item-default').click()
    await p.locator('[data-testid="profile-rail-item-default"][aria-current="true"]').waitFor()
    await p.getByTestId('memory-event').first().waitFor()
  })
  await shot('dark', '#/sessions', 'palette-dark.png', async (p) => {
    await p.getByTestId('session-row').first().waitFor()
    await p.keyboard.press('Control+k')
    await p.getByTestId('palette-input').fill('co')
  })
} finally {
  await browser.close()
  await host.close()
}
