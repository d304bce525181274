import { test, expect } from '../fixtures/host'
import { plainSession } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage as TranscriptPage } from '../page-models/session-page'

test('the search results say when a fallback answered: a 2-character CJK term, not a word search', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const session = new TranscriptPage(page)
  const target = await plainSession(host.url)
  await shell.open(host.url)
  await session.open('default', target.id)
  await session.send('会議は東京で')
  expect(await session.waitForTurnEnd()).toBe('completed')

  await shell.goTo('sessions')
  const box = page.getByTestId('search-input')
  await box.fill('東京')
  await box.press('Enter')
  await expect(page.locator(`[data-testid="search-hit"][data-session-id="${target.id}"]`).first()).toBeVisible()
  const note = page.getByTestId('search-fallback')
  await expect(note).toContainText('Not a word search')
  await expect(note).toContainText('東京')
  await expect(note).toContainText("Caduceus's short-text index")

  // a plain word is FTS5's own: no line
  await box.fill('rollback')
  await box.press('Enter')
  await expect(page.getByTestId('search-hit').first()).toBeVisible()
  await expect(note).toHaveCount(0)
})
