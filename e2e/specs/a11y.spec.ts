import type { SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { seriousViolations } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

const PAGES = ['sessions', 'session', 'subagents', 'costs', 'memory', 'gateway', 'cron', 'settings'] as const

for (const theme of ['light', 'dark'] as const) {
  test(`axe: 0 serious/critical violations on every page (${theme})`, async ({ page, host }) => {
    test.setTimeout(120_000)
    await page.addInitScript((t) => localStorage.setItem('caduceus.theme', t), theme)
    const shell = new AppShell(page)
    const s = (await api<Page>(host.url, 'sessions.list', { profile: 'default', limit: 5 })).items[0]!
    await shell.open(host.url)
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    const found: Record<string, unknown> = {}
    for (const p of PAGES) {
      if (p === 'session') {
        await page.evaluate((h) => {
          location.hash = h
        }, `#/session/default/${s.id}`)
        await expect(page.getByTestId('message').first()).toBeVisible()
      } else if (p === 'cron') {
        await page.evaluate(() => {
          location.hash = '#/cron'
        })
        await expect(page.getByTestId('page-cron')).toBeVisible()
      } else {
        await shell.goTo(p)
      }
      // let the page's data land (rows, charts) before scanning
      await page.waitForLoadState('networkidle').catch(() => {})
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
      const v = await seriousViolations(page)
      if (v.length) found[p] = v
      if (p === 'sessions') {
        // the overlays and the search view are part of the page too
        await page.keyboard.press('Control+k')
        await page.getByTestId('palette-input').fill('co')
        const pv = await seriousViolations(page)
        if (pv.length) found['palette'] = pv
        await page.keyboard.press('Escape')
        await page.locator('body').press('?')
        const sv = await seriousViolations(page)
        if (sv.length) found['shortcuts'] = sv
        await page.keyboard.press('Escape')
        await page.locator('[data-search-target]').fill('rollback')
        await expect(page.getByTestId('search-hit').first()).toBeVisible()
        const hv = await seriousViolations(page)
        if (hv.length) found['search'] = hv
        await page.locator('[data-search-target]').fill('')
      }
    }
    expect(found).toEqual({})
  })
}
