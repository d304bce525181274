import { join } from 'node:path'
import { writtenHome } from '../fixtures/home-template'
import { test as base, expect, startHost, type RunningHost } from '../fixtures/host'
import type { MessagePage } from '@shared/contract'
import { api, appendExternally } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

const N = 3000

/** A host over a home with two 3,000-message sessions, `long_a` and `long_b`, in the default profile. */
const test = base.extend<{ host: RunningHost }>({
  host: async ({}, use) => {
    const host = await startHost({
      template: writtenHome('e2e/fixtures/write-long-home.ts', [String(N), 'long_a', 'long_b']),
      demo: false
    })
    await use(host)
    await host.close()
  }
})

test('a 3,000-message session opens at its newest message and scrolls back to message 0', async ({ page, host }) => {
  test.setTimeout(120_000)
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  await shell.open(host.url)
  await transcript.open('default', 'long_a')
  await expect(transcript.title).toHaveText('Long long_a')
  await expect(transcript.messages.filter({ hasText: `Message ${N - 1} of long_a.` })).toBeInViewport()
  await expect(transcript.transcript.locator('.markdown pre code').first()).toBeVisible()

  // keep going up, as a reader holding Home would, until the very first message is on screen
  const first = transcript.messages.filter({ hasText: 'Message 0 of long_a:' })
  await expect
    .poll(
      async () => {
        await transcript.transcript.evaluate((el) => {
          el.scrollTop = 0
        })
        // on screen, not just in the DOM: when older rows arrive the view keeps the reader's row, and for a
        // moment the new top rows are still rendered while the scroller already shows that row
        return first.evaluateAll((ms) =>
          ms.some((m) => {
            const box = m.closest('[data-testid="transcript"]') // null once the row has left the DOM
            if (!box) return false
            const r = m.getBoundingClientRect()
            const s = box.getBoundingClientRect()
            return r.bottom > s.top && r.top < s.bottom
          })
        )
      },
      { timeout: 90_000, intervals: [100] }
    )
    .toBe(true)
  await expect(first).toBeInViewport()
  await expect(page.getByTestId('load-older')).toHaveCount(0)
})

test('a deep link to an old message of a long session lands on it; End, Home and j/k move from there', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  const oldest = await api<MessagePage>(host.url, 'sessions.messages', {
    profile: 'default',
    sessionId: 'long_b',
    afterId: 0,
    limit: 6
  })
  const target = oldest.items[5]!
  await shell.open(host.url)
  await transcript.open('default', 'long_b', target.id)
  await expect(transcript.message(target.id)).toBeInViewport()
  await expect(transcript.message(target.id)).toContainText('Message 5 of long_b.')
  expect(await transcript.focusedMessageId()).toBe(target.id)

  // End: the newest message; Home: the very first, read from the start in one page (not 15 pages back)
  const newest = transcript.messages.filter({ hasText: `Message ${N - 1} of long_b.` })
  const oldestRow = transcript.message(oldest.items[0]!.id)
  await page.locator('body').press('End')
  await expect(newest).toBeInViewport()
  await expect(newest).toBeFocused()
  await page.keyboard.press('Home')
  await expect(oldestRow).toBeInViewport()
  await expect(oldestRow).toBeFocused()
  await expect(oldestRow).toContainText('Message 0 of long_b:')
  // j/k: next and previous message, focused
  await page.keyboard.press('j')
  await expect(transcript.message(oldest.items[1]!.id)).toBeFocused()
  await page.keyboard.press('j')
  await expect(transcript.message(oldest.items[2]!.id)).toBeFocused()
  await page.keyboard.press('k')
  await expect(transcript.message(oldest.items[1]!.id)).toBeFocused()
  await page.keyboard.press('End')
  await expect(newest).toBeInViewport()
})

test('switching back to a transcript shows what another process appended meanwhile', async ({ page, host }) => {
  const shell = new AppShell(page)
  const transcript = new SessionPage(page)
  await shell.open(host.url)
  await transcript.open('default', 'long_a')
  await expect(transcript.messages.filter({ hasText: `Message ${N - 1} of long_a.` })).toBeVisible()
  await transcript.open('default', 'long_b')
  await expect(transcript.title).toHaveText('Long long_b')
  await expect(transcript.messages.filter({ hasText: `Message ${N - 1} of long_b.` })).toBeVisible()

  const marker = `appended while long_a was not open ${Date.now()}`
  appendExternally(join(host.root, 'state.db'), 'long_a', marker)
  await transcript.open('default', 'long_a')
  await expect(transcript.title).toHaveText('Long long_a')
  await expect(transcript.messages.filter({ hasText: marker })).toBeInViewport()
  // and it stays live while open
  const again = `appended while long_a is open ${Date.now()}`
  appendExternally(join(host.root, 'state.db'), 'long_a', again)
  await expect(transcript.messages.filter({ hasText: again })).toBeInViewport()
})
