import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { MessagePage, SessionPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api, appendExternally, rewindExternally } from '../fixtures/external'
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

test('another process rewinding the open session takes the rewound messages off the page without a reload', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const transcript = new TranscriptPage(page)
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'research', limit: 1 })
  const target = list.items[0]!
  const dbPath = join(host.root, 'profiles', 'research', 'state.db')
  const { items } = await api<MessagePage>(host.url, 'sessions.messages', {
    profile: 'research',
    sessionId: target.id,
    limit: 50
  })
  // upstream rewinds to a user message: it and everything after it go inactive
  const to = items.filter((m) => m.role === 'user').at(-1)!
  const gone = items.filter((m) => m.id >= to.id).map((m) => m.id)
  expect(gone.length).toBeGreaterThan(1)

  await shell.open(host.url)
  await shell.selectProfile('research')
  await sessions.waitForRow(target.id)
  await sessions.openSession(target.id)
  // a message or a tool result shown inside its call
  const shown = (id: number) => page.locator(`[data-message-id="${id}"]`)
  for (const id of gone) await expect(shown(id)).not.toHaveCount(0)
  expect(rewindExternally(dbPath, target.id, to.id)).toBe(gone.length)
  // the next turn upstream writes after a rewind
  const marker = `after the rewind ${Date.now()}`
  appendExternally(dbPath, target.id, marker)
  await expect(transcript.messages.filter({ hasText: marker })).toBeVisible()
  for (const id of gone) await expect(shown(id)).toHaveCount(0)
  await expect(shown(items.find((m) => m.id < to.id)!.id)).not.toHaveCount(0)
})

test('a rewind alone, with no next turn after it, takes the rewound messages off the open transcript', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'research', limit: 1 })
  const target = list.items[0]!
  const dbPath = join(host.root, 'profiles', 'research', 'state.db')
  const { items } = await api<MessagePage>(host.url, 'sessions.messages', {
    profile: 'research',
    sessionId: target.id,
    limit: 50
  })
  const to = items.filter((m) => m.role === 'user').at(-1)!
  const gone = items.filter((m) => m.id >= to.id).map((m) => m.id)

  await shell.open(host.url)
  await shell.selectProfile('research')
  await sessions.waitForRow(target.id)
  await sessions.openSession(target.id)
  const shown = (id: number) => page.locator(`[data-message-id="${id}"]`)
  for (const id of gone) await expect(shown(id)).not.toHaveCount(0)
  // upstream's rewind changes no count the list shows (message_count stays): only its rewind_count and the rows
  expect(rewindExternally(dbPath, target.id, to.id)).toBe(gone.length)
  for (const id of gone) await expect(shown(id)).toHaveCount(0)
  await expect(shown(items.find((m) => m.id < to.id)!.id)).not.toHaveCount(0)
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
  // a session another process starts is counted in the rail at once: its profile's count and All's
  const count = (p: string) => shell.profile(p).locator('.rail-count')
  const [research, all] = [Number(await count('research').innerText()), Number(await count('all').innerText())]
  const db = new Database(dbPath)
  try {
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('e2e-started-elsewhere', 'cli', ?)").run(
      Date.now() / 1000
    )
  } finally {
    db.close()
  }
  await expect(count('research')).toHaveText(String(research + 1))
  await expect(count('all')).toHaveText(String(all + 1))

  await sessions.openSession(target.id)
  const marker = `second external write ${Date.now()}`
  appendExternally(dbPath, target.id, marker)
  await expect(transcript.messages.filter({ hasText: marker })).toBeVisible()
  expect(page.url()).toContain(target.id)

  // a backup restored over state.db in which that newest message reads differently under the same id (a restored
  // file reuses the ids of what it rolled back): the open transcript shows the restored file's row
  const backup = join(host.root, 'research-backup.db')
  const live = new Database(dbPath)
  await live.backup(backup)
  live.close()
  const edited = new Database(backup)
  edited
    .prepare('UPDATE messages SET content = ? WHERE id = (SELECT MAX(id) FROM messages WHERE session_id = ?)')
    .run('as the backup had it', target.id)
  edited.close()
  execFileSync(process.execPath, ['test/fixtures/restore-backup.mjs', backup, dbPath])
  await expect(transcript.messages.filter({ hasText: 'as the backup had it' })).toBeVisible()
  await expect(transcript.messages.filter({ hasText: marker })).toHaveCount(0)
})
