// Runtime notes upstream stores as user turns for the model, in the transcript as upstream's clients show them: a
// "[System: …]" note not at all, the interrupted-turn recovery note as an event; a user's own "[Systemd …" message
// as what it is. On a copy of the v31 golden home (test/nous-v31-home.test.ts covers the requests).
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { expect, test } from '@playwright/test'
import { startHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

const FIXTURE = resolve(import.meta.dirname, '../../test/fixtures/upstream/nous-v31')
const DESK = '20251205_140000_de5k01'

test('a "[System:" note is not shown, a resumed turn is an event, a "[Systemd" message stays', async ({ page }) => {
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-notes-'))
  cpSync(FIXTURE, home, { recursive: true })
  const db = new Database(join(home, 'profiles', 'work', 'state.db'))
  const add = db.prepare('INSERT INTO messages(session_id, role, content, timestamp) VALUES (?, ?, ?, ?)')
  add.run(DESK, 'user', '[System: The user switched the model to openai/gpt-5.]', 1764950000)
  add.run(DESK, 'user', '[System note: Your previous turn was interrupted mid-run. Carry on from there.]', 1764950001)
  add.run(DESK, 'user', '[Systemd] why does my unit restart every minute?', 1764950002)
  db.close()
  const host = await startHost({ home, demo: false })
  try {
    await new AppShell(page).open(host.url)
    const transcript = new SessionPage(page)
    await transcript.open('work', DESK)
    await expect(transcript.messagesByRole('user').filter({ hasText: '[Systemd] why does my unit' })).toBeVisible()
    await expect(page.locator('[data-testid="message"][data-kind="auto_continue"]')).toHaveText(
      /Resumed an interrupted turn/
    )
    await expect(page.getByTestId('message').filter({ hasText: 'switched the model' })).toHaveCount(0)
    await expect(page.getByTestId('message').filter({ hasText: 'Your previous turn was interrupted' })).toHaveCount(0)
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
