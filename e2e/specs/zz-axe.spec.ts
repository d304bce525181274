import { test, expect } from '@playwright/test'
import { spawnHost } from '../../test/support/serve'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
test.use({ bypassCSP: true })
test('axe on the v21 home with cron', async ({ page }) => {
  test.setTimeout(180_000)
  const host = await spawnHost({ args: ['bin/caduceus.mjs', 'serve', '--home', '/tmp/lb/fh', '--port', '0'] })
  try {
    await page.setViewportSize({ width: 760, height: 1000 })
    await page.goto(host.url)
    const found: Record<string, AxeViolation[]> = {}
    const go = async (r: string) => { await page.goto(host.url.replace(/#.*$/, '') + '#' + r); await page.waitForTimeout(1200) }
    for (const r of ['/sessions', '/session/default/big-tools', '/session/default/mm-many', '/costs', '/settings', '/memory/work']) {
      await go(r); await scanThemes(page, r, found)
    }
    await go('/cron')
    await scanThemes(page, 'cron', found)
    await page.getByRole('button', { name: /^Edit/ }).first().click(); await page.waitForTimeout(500)
    await scanThemes(page, 'cron-edit', found)
    await page.keyboard.press('Escape'); await page.waitForTimeout(300)
    await page.getByRole('button', { name: 'New job' }).click(); await page.waitForTimeout(500)
    await scanThemes(page, 'cron-new', found)
    await page.keyboard.press('Escape')
    await go('/sessions')
    await page.getByTestId('list-import').click(); await page.waitForTimeout(500)
    await scanThemes(page, 'import', found)
    await page.keyboard.press('Escape')
    await go('/session/default/big-tools')
    await page.getByRole('button', { name: 'Delete' }).first().click(); await page.waitForTimeout(500)
    await scanThemes(page, 'delete-dialog', found)
    await page.keyboard.press('Escape')
    await page.keyboard.press('Control+k'); await page.waitForTimeout(500)
    await scanThemes(page, 'palette', found)
    await page.keyboard.press('Escape')
    await page.keyboard.press('?'); await page.waitForTimeout(500)
    await scanThemes(page, 'shortcuts', found)
    await go('/session/default/big-tools'); await page.screenshot({ path: '/tmp/lb/narrow-session.png' })
    await go('/sessions'); await page.screenshot({ path: '/tmp/lb/narrow-list.png' })
    console.log(JSON.stringify(found, null, 1))
    expect(found).toEqual({})
  } finally {
    await host.stop()
  }
})
