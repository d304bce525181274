import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import type { ChannelsStatus, MessagePage, SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'
import { SettingsPage } from '../page-models/settings-page'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

// Upstream's `display.busy_input_mode: queue`, chosen on the Settings page: a message sent while a turn runs waits
// as its own turn (cancellable), the running turn goes on, and the message runs once that turn ends.
test('queue mode from Settings: a message sent mid-turn waits, can be cancelled, and runs when the turn ends', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const settings = new SettingsPage(page)
  const transcript = new SessionPage(page)
  const configPath = join(host.root, 'profiles', 'work', 'config.yaml')
  const before = parse(readFileSync(configPath, 'utf8'))
  await shell.open(host.url)
  await settings.open('work')
  await settings.fill({ busyInputMode: 'queue' })
  await settings.save()
  // written where upstream's gateway reads it, and nothing else changed (no resolved defaults pinned)
  await expect
    .poll(() => parse(readFileSync(configPath, 'utf8')))
    .toEqual({ ...before, display: { busy_input_mode: 'queue' } })
  await expect(page.getByTestId('settings-save')).toBeDisabled()

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
  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'queued', found)
  expect(found).toEqual({})
  // a reload (or a second window) shows what is queued and running: the host says (turns.active)
  await page.reload()
  await expect(queued).toHaveCount(2)
  await expect(queued.last()).toContainText('scrap that')
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

// A turn the API server runs on a session the user has open: it shows where it came from, the app offers no Stop
// (it ends where it began), and a message sent meanwhile waits for it rather than interrupting it.
test('an API turn on an open session: shown as such, no Stop, and a message sent meanwhile is queued behind it', async ({
  page,
  host
}) => {
  const key = 'e2e-api-key-0123456789abcdef'
  appendFileSync(join(host.root, 'profiles', 'work', '.env'), `\nAPI_SERVER_KEY=${key}\n`)
  const status = await api<ChannelsStatus>(host.url, 'channels.apiServer', { enabled: true, profile: 'work', port: 0 })
  expect(status.apiServer.running).toBe(true)
  const list = await api<Page>(host.url, 'sessions.list', { profile: 'work', limit: 20 })
  const s = list.items.find((x) => x.title)!
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  await shell.open(host.url)
  await transcript.open('work', s.id)

  const client = new AbortController()
  const res = await fetch(`${status.apiServer.url}/chat/completions`, {
    method: 'POST',
    signal: client.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-hermes-session-id': s.id },
    body: JSON.stringify({
      model: 'hermes',
      stream: true,
      messages: [{ role: 'user', content: 'show markdown and hold' }]
    })
  })
  expect(res.status).toBe(200)
  await expect(page.getByTestId('turn-strip').last()).toHaveAttribute('data-status', 'running')
  const apiTurn = await page.getByTestId('turn-strip').last().getAttribute('data-turn-id')
  const strip = page.locator(`[data-testid="turn-strip"][data-turn-id="${apiTurn}"]`)
  await expect(strip.getByTestId('turn-source')).toHaveText('via api_server')
  await expect(page.getByTestId('composer-stop')).toHaveCount(0)
  await expect(page.getByTestId('composer-foreign-turn')).toContainText('api_server')
  await transcript.composer.fill('after the api turn')
  await expect(page.getByTestId('composer-send')).toHaveText(/Queue/)
  await page.getByTestId('composer-send').click()
  await expect(page.getByTestId('queued-turn')).toContainText('after the api turn')
  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'foreign-turn', found)
  expect(found).toEqual({})

  client.abort() // the API client hangs up: its turn stops, and the queued message runs
  await expect(strip).toHaveAttribute('data-status', 'interrupted')
  await transcript.waitForMessage('after the api turn', 'user')
  await expect(page.getByTestId('queued-turn')).toHaveCount(0)
  expect(await transcript.waitForTurnEnd()).toBe('completed')
})
