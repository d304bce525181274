import { join } from 'node:path'
import { test, expect } from '../fixtures/host'
import { appendExternally, plainSession } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// Upstream keeps messages with no text (an empty turn, a failed paste): the transcript says the message is empty
// rather than showing a bare "User 02:45" header that reads as content that failed to load.
test('a message with no content says it is empty', async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  const target = await plainSession(host.url)
  const id = appendExternally(join(host.root, 'state.db'), target.id, '')
  await shell.open(host.url)
  await session.open('default', target.id, id)
  await expect(session.message(id)).toContainText('(empty message)')
})
