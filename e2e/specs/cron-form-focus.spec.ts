import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { CronPage } from '../page-models/cron-page'

// The job form opens inline under the toolbar: from the keyboard, "New job" puts focus in its first field, and
// Cancel puts it back on "New job" instead of dropping it on the page (the form it was in is gone).
test('the cron job form takes focus when it opens and gives it back when cancelled', async ({ page, host }) => {
  const shell = new AppShell(page)
  const cron = new CronPage(page)
  await shell.open(host.url)
  await cron.open()
  const newJob = page.getByTestId('cron-new')
  await newJob.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('cron-schedule')).toBeFocused()
  await page.getByTestId('cron-form').getByRole('button', { name: 'Cancel' }).focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('cron-form')).toBeHidden()
  await expect(newJob).toBeFocused()
})
