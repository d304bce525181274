import type { SessionDetail, SessionPage as SessionList } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// A message typed on an earlier part of a compressed conversation goes on in its latest part (the host resumes the
// tip, as upstream does): the page follows it there, so the sent text and its reply stay in view instead of vanishing.
test('sending from an earlier part of a compression chain opens the part it went to', async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  const list = await api<SessionList>(host.url, 'sessions.list', { profile: 'all', limit: 50 })
  const tip = list.items.find((s) => s.chainLength > 1)!
  const detail = await api<SessionDetail>(host.url, 'sessions.get', { profile: tip.profile, sessionId: tip.id })
  const first = detail.lineage.chain[0]!.id
  expect(first).not.toBe(tip.id)

  await shell.open(host.url)
  await session.open(tip.profile, first)
  await session.composer.fill('carry on from the first part')
  await page.getByTestId('composer-send').click()

  await expect(page).toHaveURL(new RegExp(`#/session/${tip.profile}/${tip.id}$`))
  await session.waitForMessage('carry on from the first part', 'user')
  expect(await session.waitForTurnEnd()).toBe('completed')
})
