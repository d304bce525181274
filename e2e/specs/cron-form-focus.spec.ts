import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { CronPage } from '../page-models/cron-page'

// The job form opens inline under the toolbar: from the keyboard, "New job" puts focus in its first field, and
// Cancel puts it back on "New job" instead of dropping it on the page (the form it was in is gone).
test('the cron job form takes focus when it opens, saves and cancels by the inline-edit keys, and gives focus back', async ({
  page,
  host
}) => {
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

  // The same keys as Memory's entries and a session's rename: Escape cancels from any field, Enter in a one-line field
  // saves, and in the prompt (where Enter is a new line) ⌘/Ctrl+Enter saves; focus goes back to New job or the row's Edit
  await page.keyboard.press('Enter')
  await page.keyboard.type('every 2h')
  await page.getByTestId('cron-prompt').focus()
  await page.keyboard.type('Check the queue')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('cron-form')).toBeHidden()
  await expect(newJob).toBeFocused()
  await expect(cron.jobs).toHaveCount(0)
  await page.keyboard.press('Enter')
  await page.keyboard.type('every 2h')
  await page.getByTestId('cron-prompt').focus()
  await page.keyboard.type('Check the queue')
  await page.keyboard.press('Enter')
  await page.keyboard.type('and the backlog')
  await page.keyboard.press('ControlOrMeta+Enter')
  await expect(page.getByTestId('cron-form')).toBeHidden()
  await expect(cron.jobs).toHaveCount(1)
  await expect(newJob).toBeFocused()
  const edit = page.getByTestId('cron-edit')
  await edit.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('cron-schedule')).toBeFocused()
  await expect(page.getByTestId('cron-prompt')).toHaveValue('Check the queue\nand the backlog')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('cron-form')).toBeHidden()
  await expect(edit).toBeFocused()
})
