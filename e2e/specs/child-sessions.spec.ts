import { join } from 'node:path'
import Database from 'better-sqlite3'
import { test, expect } from '../fixtures/host'
import { plainSession } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage as TranscriptPage } from '../page-models/session-page'

// A child upstream's list leaves out (here a `tool` session another process wrote): hidden from the list until
// "child sessions" is ticked, and named on its parent's page under "other children", which opens it.
test('a tool’s child session: hidden from the list unless asked for, reachable from its parent', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const transcript = new TranscriptPage(page)
  const parent = await plainSession(host.url)
  const db = new Database(join(host.root, 'state.db'))
  try {
    db.prepare(
      "INSERT INTO sessions (id, source, parent_session_id, started_at, title) VALUES ('e2e-tool-kid', 'tool', ?, ?, ?)"
    ).run(parent.id, Date.now() / 1000, 'Tool run for e2e')
  } finally {
    db.close()
  }

  await shell.open(host.url)
  await page.getByTestId('filter-id-prefix').fill('e2e-tool-kid')
  const row = page.locator('[data-testid="session-row"][data-session-id="e2e-tool-kid"]')
  await expect(page.getByTestId('session-row')).toHaveCount(0)
  await page.getByTestId('filter-include-children').check()
  await expect(row).toHaveCount(1)

  await transcript.open('default', parent.id)
  const other = page.getByTestId('lineage-other')
  await expect(other).toHaveText('Tool run for e2e')
  await other.click()
  await expect(transcript.title).toHaveText('Tool run for e2e')
})
