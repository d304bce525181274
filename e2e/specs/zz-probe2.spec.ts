import { test as base, expect } from '@playwright/test'
import { startHost, type RunningHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'
const test = base.extend<{}, { host: RunningHost }>({
  host: [async ({}, use) => { const h = await startHost(); await use(h); await h.close() }, { scope: 'worker' }]
})
for (let i = 0; i < 8; i++)
  test(`probe ${i}`, async ({ page, host }) => {
    await new AppShell(page).open(host.url)
    await expect(new SessionsPage(page).rows.first()).toBeVisible()
  })
