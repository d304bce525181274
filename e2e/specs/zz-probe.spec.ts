import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'
for (let i = 0; i < 8; i++)
  test(`probe ${i}`, async ({ page, host }) => {
    await new AppShell(page).open(host.url)
    await expect(new SessionsPage(page).rows.first()).toBeVisible()
  })
