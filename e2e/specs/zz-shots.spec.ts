import { test } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
test('shots', async ({ page, host }) => {
  test.setTimeout(120_000)
  const shell = new AppShell(page)
  await page.setViewportSize({ width: 1024, height: 768 })
  await shell.open(host.url)
  for (const p of ['costs', 'subagents', 'memory'] as const) {
    await shell.goTo(p)
    await page.waitForTimeout(1500)
    const tables = page.locator('table')
    const n = await tables.count()
    for (let i = 0; i < Math.min(n, 3); i++) {
      await tables.nth(i).scrollIntoViewIfNeeded()
      await page.screenshot({ path: `/tmp/shots/${p}-${i}.png` })
    }
    if (p === 'memory') {
      await page.locator('[data-testid^="memory-profile"], [data-testid*="profile"]').first().click().catch(() => {})
      await page.waitForTimeout(800)
      await page.screenshot({ path: `/tmp/shots/memory-profile.png` })
    }
  }
})
