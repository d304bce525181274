import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import type { MessagePage, SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'
import { SettingsPage } from '../page-models/settings-page'

// Upstream's `display.busy_input_mode: queue`, chosen on the Settings page: a message sent while a turn runs waits
// as its own turn (cancellable), the running turn goes on, and the message runs once that turn ends.
test('queue mode from Settings: a message sent mid-turn waits, can be cancelled, and runs when the turn ends', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const settings = new SettingsPage(page)
  const transcript = new SessionPage(page)
  await shell.open(host.url)
  await settings.open('work')
  await settings.fill({ busyInputMode: 'queue' })
  await settings.save()
  await expect(page.getByTestId('settings-save')).toBeDisabled()
  // written where upstream's gateway reads it
  const config = parse(readFileSync(join(host.root, 'profiles', 'work', 'config.yaml'), 'utf8'))
  expect(config.display.busy_input_mode).toBe('queue')

  const list = await api<Page>(host.url, 'sessions.list', { profile: 'work', limit: 20 })
  const s = list.items.find((x) => x.title)!
  await transcript.open('work', s.id)
  await transcript.send('show markdown and hold')
  const held = page.getByTestId('turn-strip').last()
  await expect(held).toHaveAttribute('data-status', 'running')
  const heldId = await held.getAttribute('data-turn-id')

  await transcript.composer.fill('and then say hi')
  await expect(page.getByTestId('composer-send')).toHaveText(/Queue/)
  await page.getByTestId('composer-send').click()
  const queued = page.getByTestId('queued-turn')
  await expect(queued).toHaveCount(1)
  await expect(queued).toContainText('and then say hi')
  await expect(transcript.composer).toHaveValue('')
  await transcript.composer.fill('scrap that')
  await page.getByTestId('composer-send').click()
  await expect(queued).toHaveCount(2)
  await queued.last().getByTestId('queued-cancel').click()
  await expect(queued).toHaveCount(1)
  await expect(page.locator(`[data-testid="turn-strip"][data-turn-id="${heldId}"]`)).toHaveAttribute(
    'data-status',
    'running'
  )

  await transcript.stop()
  await expect(page.locator(`[data-testid="turn-strip"][data-turn-id="${heldId}"]`)).toHaveAttribute(
    'data-status',
    'interrupted'
  )
  await expect(queued).toHaveCount(0)
  await transcript.waitForMessage('and then say hi', 'user')
  expect(await transcript.waitForTurnEnd()).toBe('completed')
  const msgs = await api<MessagePage>(host.url, 'sessions.messages', { profile: 'work', sessionId: s.id, limit: 50 })
  const said = msgs.items.filter((m) => m.role === 'user').map((m) => m.content)
  expect(said).toContain('and then say hi')
  expect(said).not.toContain('scrap that')
})
