import { join } from 'node:path'
import type { SessionPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api, appendExternally } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'
import { SessionPage as TranscriptPage } from '../page-models/session-page'

test('the session list renders and the profile rail filters it', async ({ page, host }) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  await shell.open(host.url)
  await expect(sessions.rows.first()).toBeVisible()
  const profiles = await sessions.rows.evaluateAll(
    (rows) => new Set(rows.map((r) => r.getAttribute('data-profile'))).size
  )
  expect(profiles).toBeGreaterThan(1)

  await shell.selectProfile('work')
  // The first row can already be a work session before the filtered page replaces the list: wait for the whole list.
  await expect
    .poll(async () => [
      ...new Set(await sessions.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-profile'))))
    ])
    .toEqual(['work'])
})

test('search finds a message and opens the transcript at it', async ({ page, host }) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  await shell.open(host.url)
  await sessions.search('rollback')
  await expect(sessions.hits.first()).toBeVisible()
  expect((await sessions.highlightedTerms()).map((t) => t.toLowerCase())).toContain('rollback')
  const { messageId } = await sessions.openHit(0)
  const focused = page.locator(`[data-testid="message"][data-message-id="${messageId}"]`)
  await expect(focused).toBeInViewport()
  await expect(focused).toContainText(/rollback/i)
})

test('another process appending updates the row and the open transcript without a reload', async ({ page, host }) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const transcript = new TranscriptPage(page)
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'research', limit: 1 })
  const target = list.items[0]!
  const dbPath = join(host.root, 'profiles', 'research', 'state.db')

  await shell.open(host.url)
  await shell.selectProfile('research')
  const row = await sessions.waitForRow(target.id)
  await expect(row.getByTestId('session-msgs')).toHaveText(String(target.messageCount))
  appendExternally(dbPath, target.id, 'external note from another process')
  await expect(row.getByTestId('session-msgs')).toHaveText(String(target.messageCount + 1))

  await sessions.openSession(target.id)
  const marker = `second external write ${Date.now()}`
  appendExternally(dbPath, target.id, marker)
  await expect(transcript.messages.filter({ hasText: marker })).toBeVisible()
  expect(page.url()).toContain(target.id)
})
