import type { SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'

test.use({ bypassCSP: true }) // axe is injected as a script tag

// The list's columns sort it, and the host does the sorting: the first row sorted by messages is the session with the
// most messages of all ~300, not of the 100 the first page (by last activity) happened to load.
test('the Sessions list sorts by its columns on the host, at 900 px, in the URL and both ways', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const list = new SessionsPage(page)
  await page.setViewportSize({ width: 900, height: 860 })
  await shell.open(host.url)
  await list.open()
  await expect(list.rows.first()).toBeVisible()
  const ids = () => list.rows.evaluateAll((els) => els.slice(0, 8).map((e) => e.getAttribute('data-session-id')))
  const hostIds = async (q: object) =>
    (await api<Page>(host.url, 'sessions.list', { profile: 'all', limit: 8, ...q })).items.map((s) => s.id)

  // the default: last activity, newest first — its column says so
  await expect(page.getByTestId('sort-head-active')).toHaveAttribute('aria-pressed', 'true')
  await expect(page.getByTestId('sort-head-active')).toHaveAccessibleName(/Active.*newest first/)
  expect(await ids()).toEqual(await hostIds({}))

  // messages, most first, across every page of the home
  await page.getByTestId('sort-head-messages').click()
  await expect(page).toHaveURL(/sort=messages/)
  await expect(page.getByTestId('sort-head-messages')).toHaveAttribute('data-dir', 'desc')
  const byMessages = await hostIds({ sort: 'messages' })
  await expect.poll(ids).toEqual(byMessages)
  const all = await api<Page>(host.url, 'sessions.list', { profile: 'all', limit: 500 })
  const most = Math.max(...all.items.map((s) => s.messageCount))
  await expect(list.rows.first().getByTestId('session-msgs')).toHaveText(String(most))
  // again: fewest first
  await page.getByTestId('sort-head-messages').click()
  await expect(page).toHaveURL(/sort=messages&dir=asc/)
  await expect.poll(ids).toEqual(await hostIds({ sort: 'messages', dir: 'asc' }))

  // tokens (no column of its own: the Msgs column shows them while the list is sorted by them), from the menu
  await page.getByTestId('sort-by').selectOption('tokens')
  await expect(page.getByTestId('sort-head-tokens')).toHaveText(/Tokens/)
  await expect.poll(ids).toEqual(await hostIds({ sort: 'tokens' }))
  await expect(list.rows.first().getByTestId('session-tokens')).toBeVisible()

  // cost, and the title A → Z
  await page.getByTestId('sort-head-cost').click()
  await expect.poll(ids).toEqual(await hostIds({ sort: 'cost' }))
  await page.getByTestId('sort-head-title').click()
  await expect(page.getByTestId('sort-dir')).toHaveText(/A to Z/)
  await expect.poll(ids).toEqual(await hostIds({ sort: 'title' }))

  // started: the Active column shows the start while sorted by it; a reload keeps the order (it is in the URL)
  await page.getByTestId('sort-by').selectOption('started')
  await page.getByTestId('sort-dir').click()
  await expect(page).toHaveURL(/sort=started&dir=asc/)
  await expect.poll(ids).toEqual(await hostIds({ sort: 'started', dir: 'asc' }))
  await page.reload()
  await expect(page.getByTestId('sort-head-started')).toHaveAttribute('data-dir', 'asc')
  await expect.poll(ids).toEqual(await hostIds({ sort: 'started', dir: 'asc' }))

  // every head is whole at 900 px, and the filter bar's controls stay on the page
  for (const h of await page.locator('.list-head .sort-head').all())
    expect(await h.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)
  const bar = (await page.getByTestId('session-filters').boundingBox())!
  expect(bar.x + bar.width).toBeLessThanOrEqual(900)

  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'sessions-sorted', found)
  expect(found).toEqual({})
})
