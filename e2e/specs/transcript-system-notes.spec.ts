// Runtime notes upstream stores as user turns for the model, in the transcript as upstream's clients show them: a
// "[System: …]" note not at all, the interrupted-turn recovery note as an event; a user's own "[Systemd …" message
// as what it is. The assistant row that closes a tool round the user stopped (upstream's and ours) is the Stop it
// records, not the model's words; a steer is the user's, marked as one. On a copy of the v31 golden home
// (test/nous-v31-home.test.ts covers the requests).
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { expect, test } from '@playwright/test'
import { startHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'
import { STOPPED_REPLY } from '@shared/contract/stopped-turn'

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
  // two stopped tool rounds: upstream's closing row (its placeholder) and ours; then a reply that only looks alike
  const call = db.prepare(
    'INSERT INTO messages(session_id, role, content, tool_calls, timestamp, finish_reason) VALUES (?, ?, ?, ?, ?, ?)'
  )
  const result = db.prepare(
    'INSERT INTO messages(session_id, role, content, tool_call_id, tool_name, timestamp) VALUES (?, ?, ?, ?, ?, ?)'
  )
  const calls = (id: string) =>
    JSON.stringify([{ id, type: 'function', function: { name: 'terminal', arguments: '{"command":"sleep 3"}' } }])
  call.run(DESK, 'assistant', '', calls('c1'), 1764950003, 'tool_calls')
  result.run(DESK, 'tool', '{"output": "[Command interrupted]"}', 'c1', 'terminal', 1764950004)
  add.run(DESK, 'assistant', 'Operation interrupted.', 1764950005)
  call.run(DESK, 'assistant', '', calls('c2'), 1764950006, 'tool_calls')
  result.run(DESK, 'tool', '{"output": "[Command interrupted]"}', 'c2', 'terminal', 1764950007)
  add.run(DESK, 'assistant', STOPPED_REPLY, 1764950008)
  call.run(DESK, 'assistant', 'Operation interrupted.', null, 1764950009, 'stop')
  // a steer: the user's words, added to the running turn (Caduceus's display kind)
  db.prepare('INSERT INTO messages(session_id, role, content, timestamp, display_kind) VALUES (?, ?, ?, ?, ?)').run(
    DESK,
    'user',
    'and check the logs too',
    1764950010,
    'steer'
  )
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

    const stops = page.locator('[data-testid="message"][data-kind="turn_stopped"]')
    await expect(stops).toHaveCount(2)
    await expect(stops.nth(0)).toHaveAttribute('data-writer', 'upstream')
    await expect(stops.nth(1)).toHaveAttribute('data-writer', 'caduceus')
    for (const stop of await stops.all()) {
      await expect(stop).toHaveAccessibleName('Stopped by you')
      await expect(stop.locator('.msg-body')).toHaveCount(0)
    }
    await expect(stops.nth(1)).not.toContainText(STOPPED_REPLY)
    await stops.nth(1).getByTestId('notice-raw-toggle').click()
    await expect(stops.nth(1).getByTestId('notice-raw')).toHaveText(STOPPED_REPLY)
    // the model's own reply in the same words stays the model's
    await expect(
      transcript.messagesByRole('assistant').locator('.msg-body', { hasText: 'Operation interrupted.' })
    ).toHaveCount(1)
    // a steer stays the user's words, marked as a steer (as the exports head it)
    const steer = transcript.messagesByRole('user').filter({ hasText: 'and check the logs too' })
    await expect(steer.getByTestId('steer-badge')).toHaveText('steer')
    await expect(transcript.messagesByRole('user').getByTestId('steer-badge')).toHaveCount(1)
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
