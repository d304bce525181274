// The source filter offers every source a profile's sessions have, those the list leaves out unless named (kanban
// workers, one-shot runs, as the newest upstream hides them) included: on the v31 golden home
// (test/fixtures/upstream/nous-v31; test/nous-v31-home.test.ts covers the requests).
import { resolve } from 'node:path'
import { expect, test } from '@playwright/test'
import { startHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'

const HOME = resolve(import.meta.dirname, '../../test/fixtures/upstream/nous-v31')
const KANBAN = '20251205_150000_kanb01'

test('the source filter offers kanban and oneshot before any such row was shown, and lists them when chosen', async ({
  page
}) => {
  const host = await startHost({
    template: HOME,
    demo: false
  })
  try {
    const shell = new AppShell(page)
    await shell.open(host.url)
    await shell.selectProfile('work')
    const row = page.locator(`[data-testid="session-row"][data-session-id="${KANBAN}"]`)
    await expect(page.getByTestId('session-row').first()).toBeVisible()
    await expect(row).toHaveCount(0)
    const options = page.getByTestId('filter-source').locator('option')
    await expect.poll(() => options.allInnerTexts()).toEqual(expect.arrayContaining(['kanban', 'oneshot']))
    await page.getByTestId('filter-source').selectOption('kanban')
    await expect(row).toBeVisible()
  } finally {
    await host.close()
  }
})
