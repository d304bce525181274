import type { SessionPage as Page_ } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

test('the session page shows the system prompt the model saw, folded', async ({ page, host }) => {
  const list = await api<Page_>(host.url, 'sessions.list', { profile: 'work', limit: 1 })
  const target = list.items[0]!
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  await shell.open(host.url)
  await session.open('work', target.id)
  const fold = page.getByTestId('system-prompt')
  await expect(fold).toBeVisible()
  await expect(page.getByTestId('system-prompt-text')).toHaveCount(0)
  await page.getByTestId('system-prompt-toggle').click()
  await expect(page.getByTestId('system-prompt-text')).toContainText(
    'You are Hermes, the assistant of the work profile'
  )
})
