/**
 * README screenshots: `npm run build && npx tsx scripts/screenshots.ts` (not part of npm test). Starts
 * `caduceus serve --demo` on a fresh temp home and captures the main pages in the light theme at 1360×860 into
 * docs/screenshots/*.png (plus the palette in dark), and a second host on the golden tool-results home
 * (e2e/fixtures/write-tool-home.ts: rows upstream's own tools stored) for the tool-results shot. Re-run after a
 * UI change and commit the PNGs.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Page } from '@playwright/test'
import { startHost, type RunningHost } from '../e2e/fixtures/host'
import { api } from '../e2e/fixtures/external'
import { SessionPage } from '../e2e/page-models/session-page'

const out = resolve(import.meta.dirname, '..', 'docs', 'screenshots')
/** The README links these; keep each small so the repository stays light. */
const MAX_BYTES = 300 * 1024
mkdirSync(out, { recursive: true })
const host = await startHost()
const toolHome = mkdtempSync(join(tmpdir(), 'cad-shots-tools-'))
execFileSync(process.execPath, ['--import', 'tsx', 'e2e/fixtures/write-tool-home.ts', toolHome], {
  cwd: resolve(import.meta.dirname, '..')
})
const toolHost = await startHost({ home: toolHome, demo: false })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu']
})
try {
  const shot = async (
    theme: 'light' | 'dark',
    hash: string,
    name: string,
    ready: (p: Page) => Promise<void>,
    on: RunningHost = host
  ) => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } })
    await page.addInitScript((t) => localStorage.setItem('caduceus.theme', t), theme)
    await page.goto(on.url.replace(/#.*$/, '') + hash)
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
  const defaultFirst = (
    await api<{ items: Array<{ id: string }> }>(host.url, 'sessions.list', { profile: 'default', limit: 1 })
  ).items[0]!.id
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
  // upstream's own tool results, each inside its call: terminal output with its exit code, a file, a diff
  await shot(
    'light',
    '#/session/default/golden-tools',
    'tool-results.png',
    async (p) => {
      const calls = p.getByTestId('tool-call')
      await calls.nth(8).waitFor()
      for (const i of [0, 2, 4]) await calls.nth(i).getByTestId('tool-call-toggle').click()
      await calls.nth(0).scrollIntoViewIfNeeded()
      await p.getByTestId('transcript').evaluate((t) => {
        const first = t.querySelector('[data-testid="tool-call"]')!
        t.scrollTop += first.getBoundingClientRect().top - t.getBoundingClientRect().top - 60
      })
    },
    toolHost
  )
  // a compression chain read as one conversation: the marker between its parts, the whole chain's cost
  const chains = await api<{ items: Array<{ id: string; title: string | null; chainLength: number }> }>(
    host.url,
    'sessions.list',
    { profile: 'default', limit: 100 }
  )
  const chain = chains.items.find((x) => x.chainLength > 2 && x.title) ?? chains.items.find((x) => x.chainLength > 1)!
  await shot('light', `#/session/default/${chain.id}`, 'chain.png', async (p) => {
    const marker = p.getByTestId('compaction-marker').last()
    await marker.waitFor({ state: 'attached' })
    await marker.scrollIntoViewIfNeeded()
    await p.getByTestId('transcript').evaluate((t) => {
      t.scrollTop -= t.clientHeight / 3
    })
  })
  await shot('light', '#/costs', 'costs.png', async (p) => {
    await p.getByTestId('costs-chart').waitFor()
  })
  await shot('light', '#/subagents', 'subagents.png', async (p) => {
    await p.getByTestId('subagent-row').first().waitFor()
  })
  await shot('light', '#/sessions', 'memory.png', async (p) => {
    // a fresh demo has no memory activity yet: one turn that remembers something fills the feed and health
    const session = new SessionPage(p)
    await session.open('default', defaultFirst)
    await session.send('Please remember that the heater service is booked for Monday')
    await session.waitForTurnEnd()
    await p.evaluate(() => {
      location.hash = '#/memory'
    })
    await p.getByTestId('profile-rail-item-default').click()
    await p.locator('[data-testid="profile-rail-item-default"][aria-current="true"]').waitFor()
    await p.getByTestId('memory-event').first().waitFor()
    await p.getByTestId('memory-health-row').first().waitFor()
  })
  await shot('dark', '#/sessions', 'palette-dark.png', async (p) => {
    await p.getByTestId('session-row').first().waitFor()
    await p.keyboard.press('Control+k')
    await p.getByTestId('palette-input').fill('co')
  })
} finally {
  await browser.close()
  await host.close()
  await toolHost.close()
  rmSync(toolHome, { recursive: true, force: true })
}
