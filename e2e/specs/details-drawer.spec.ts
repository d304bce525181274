import { test, expect } from '../fixtures/host'
import { plainSession } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// In a narrow window the session's details are a drawer over the transcript. Escape closes that drawer and gives
// focus back to the Details button; it does not also leave the session (Escape's page-level meaning, "back to the
// list", applies once nothing is open over the page).
test('Escape closes the narrow-window details drawer without leaving the session', async ({ page, host }) => {
  await page.setViewportSize({ width: 900, height: 800 })
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  const target = await plainSession(host.url)
  await shell.open(host.url)
  await session.open('default', target.id)

  const side = page.locator('.session-side')
  const toggle = page.getByTestId('session-details-toggle')
  await toggle.focus()
  await page.keyboard.press('Enter')
  await expect(side).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(side).toBeHidden()
  await expect(toggle).toBeFocused()
  expect(page.url()).toContain(`#/session/default/${encodeURIComponent(target.id)}`)

  // with the drawer closed, Escape goes back to the list as before
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('page-sessions')).toBeVisible()
})
