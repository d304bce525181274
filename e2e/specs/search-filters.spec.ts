import type { SearchResult, SessionDetail, SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'

const hitIds = (page: import('@playwright/test').Page, testId: string) =>
  page.getByTestId(testId).evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')!))

// Issue #26 item 3: a search keeps the filter bar and applies it; a compression chain is one result.
test('search keeps the filters visible and applied, and groups a chain as one result', async ({ page, host }) => {
  const shell = new AppShell(page)
  await shell.open(host.url, '#/sessions?q=heater&sources=telegram')
  await expect(page.getByTestId('search-hit').first()).toBeVisible()
  await expect(page.getByTestId('filter-source')).toHaveValue('telegram')
  const telegram = await api<SearchResult>(host.url, 'sessions.search', {
    query: 'heater',
    sources: ['telegram'],
    archived: 'exclude',
    includeChildren: false
  })
  const all = await api<SearchResult>(host.url, 'sessions.search', { query: 'heater' })
  expect(telegram.hits.length).toBeGreaterThan(0)
  expect(telegram.hits.length).toBeLessThan(all.hits.length)
  await expect.poll(() => hitIds(page, 'search-hit')).toEqual(telegram.hits.map((h) => h.sessionId))
  // snippets read as text: no tool-call JSON or Markdown markup around the hit
  for (const s of await page.locator('[data-testid="search-hit"] .hit-snippet').allInnerTexts())
    expect(s).not.toMatch(/\{"|\*\*|\\n/)

  // clearing the filter re-runs the search, and the URL follows
  await page.getByTestId('filter-source').selectOption('')
  await expect.poll(async () => (await hitIds(page, 'search-hit')).length).toBeGreaterThan(telegram.hits.length)
  expect(page.url()).not.toContain('sources=')

  // the newest "Rename files by date" is a chain of several parts: one group, under its tip, none for the others
  const rows = (await api<Page>(host.url, 'sessions.list', { profile: 'default', limit: 200 })).items
  const tip = rows.find((s) => s.title?.startsWith('Rename files by date') && s.chainLength > 1)!
  const detail = await api<SessionDetail>(host.url, 'sessions.get', { profile: 'default', sessionId: tip.id })
  const parts = detail.lineage.chain.map((c) => c.id)
  expect(parts.length).toBeGreaterThan(1)
  await shell.selectProfile('default')
  await page.getByTestId('search-input').fill('rename')
  await expect(page.locator(`[data-testid="search-group"][data-session-id="${tip.id}"]`)).toHaveCount(1)
  const groups = await hitIds(page, 'search-group')
  expect(new Set(groups).size).toBe(groups.length)
  expect(groups.filter((g) => parts.includes(g))).toEqual([tip.id])
  // hits from earlier parts sit in the tip's group, named as the chain
  const chainHits = page.locator('[data-testid="search-hit"]').filter({ hasText: 'Rename files by date' })
  const inParts = (await hitIds(page, 'search-hit')).filter((id) => parts.includes(id) && id !== tip.id)
  expect(inParts.length).toBeGreaterThan(0)
  await expect(chainHits.first()).toBeVisible()
})
