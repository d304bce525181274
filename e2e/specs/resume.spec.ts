import { join } from 'node:path'
import { test, expect } from '../fixtures/host'
import { appendExternally, plainSession } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage as TranscriptPage } from '../page-models/session-page'

test('resume a seeded session: the reply streams, persists across reload, and an external write rebuilds the agent', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const session = new TranscriptPage(page)
  const target = await plainSession(host.url)

  await shell.open(host.url)
  await session.open('default', target.id)
  await session.send('What changed since yesterday?')
  expect(await session.waitForTurnEnd()).toBe('completed')
  expect(await session.lastBadge()).toBe('fresh agent: first turn here')
  expect(await session.isDemoModel()).toBe(true)
  await session.waitForMessage('What changed since yesterday?', 'user')
  await session.waitForMessage(/demo model/, 'assistant')

  // A second own turn reuses the warm agent.
  await session.send('And before that?')
  expect(await session.waitForTurnEnd()).toBe('completed')
  expect(await session.lastBadge()).toBe('reused')

  await page.reload()
  await expect(session.transcript).toBeVisible()
  await session.waitForMessage('And before that?', 'user')
  await session.waitForMessage(/And before that\?/, 'assistant')

  // Another process writes to the transcript: the next turn must not reuse the stale agent.
  appendExternally(join(host.root, 'state.db'), target.id, 'note added by another process')
  await session.waitForMessage('note added by another process')
  await session.send('Did you see the note?')
  expect(await session.waitForTurnEnd()).toBe('completed')
  expect(await session.lastBadge()).toBe('fresh agent: changed elsewhere')
})
