import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'
import { SessionsPage } from '../page-models/sessions-page'
import { SessionSelection, splitKey as split } from '../page-models/session-selection'

// "Deleted “…” · Undo" says the session is deleted; leaving the app inside the undo window declines the undo. The
// delete must still reach the host, or the user, told it was deleted, finds it there the next time.
const exists = (url: string, key: string) =>
  api(url, 'sessions.get', split(key)).then(
    () => true,
    () => false
  )

test('a delete still in its undo window is sent when the page reloads', async ({ page, host }) => {
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  const list = await api<{ items: Array<{ id: string }> }>(host.url, 'sessions.list', { profile: 'default', limit: 3 })
  const id = list.items[0]!.id
  await s.open('default', id)
  await page.getByTestId('session-delete').click()
  await page.getByTestId('delete-confirm').click()
  await expect(page.getByTestId('undo-delete-bar')).toBeVisible()
  await page.reload()
  await expect(shell.connection).toHaveAttribute('data-state', 'connected')
  await expect.poll(() => exists(host.url, `default/${id}`)).toBe(false)
  await expect(page.locator(`[data-testid="session-row"][data-session-id="${id}"]`)).toHaveCount(0)
})

test('a bulk delete still in its undo window is sent when the tab closes', async ({ page, host }) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const sel = new SessionSelection(page, sessions)
  await shell.open(host.url)
  await expect(sessions.rows.nth(3)).toBeVisible()
  const keys = await sel.selectRange(0, 2)
  await page.getByTestId('bulk-delete').click()
  await page.getByTestId('bulk-delete-confirm').click()
  await expect(page.getByTestId('undo-delete-bar')).toContainText('Deleted 3 sessions')
  await page.close({ runBeforeUnload: true })
  for (const k of keys) await expect.poll(() => exists(host.url, k)).toBe(false)
})
