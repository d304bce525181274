// A finished background process reaches its session as a message nobody typed; the transcript shows it as an event
// card (how it ended, the command, its output), not as the raw "[Background process …]" text. Upstream's notices
// (its own formatter's text, test/fixtures/upstream/process-notices) and Caduceus's shape (src-main/tools/completion.ts)
// both; a typed look-alike stays what the user typed.
import { readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { expect, test } from '@playwright/test'
import { startHost } from '../fixtures/host'
import { DESK, v31HomeWithDeskRows } from '../fixtures/v31-desk-home'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

const NOTICES = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../test/fixtures/upstream/process-notices/notices.json'), 'utf8')
) as Record<string, string>

test.use({ bypassCSP: true }) // axe is injected as a script tag

test('background process notices are event cards; a typed look-alike stays a user message; axe clean', async ({
  page
}) => {
  const lookAlike = `${NOTICES.exit_fail.split('\n')[0]}\nI saw this in my terminal, what does it mean?]`
  const home = v31HomeWithDeskRows('cad-e2e-process-notice-', [
    { content: NOTICES.exit_ok! },
    { content: NOTICES.watch_match_suppressed! },
    {
      content:
        '[Background process proc_c4d5 finished: exit code 2]\nCommand: make test\nOutput (tail):\nFAILED: 2 tests',
      displayKind: 'process_complete'
    },
    { content: lookAlike }
  ])
  const host = await startHost({ home, demo: false })
  try {
    await page.setViewportSize({ width: 900, height: 860 })
    await new AppShell(page).open(host.url)
    const transcript = new SessionPage(page)
    await transcript.open('work', DESK)
    const cards = page.locator('[data-testid="message"].process-notice')
    await expect(cards).toHaveCount(3)

    const ok = cards.nth(0)
    await expect(ok).toHaveAttribute('data-kind', 'upstream_process')
    await expect(ok).toHaveAttribute('data-status', 'completed')
    await expect(ok.getByTestId('notice-status')).toHaveText('completed normally')
    await expect(ok.getByTestId('notice-command')).toHaveText('$ npm test -- --watch=false')
    await expect(ok.getByTestId('notice-output')).toHaveText('Tests: 12 passed\nDone in 3.1s')
    await expect(ok).not.toContainText('[IMPORTANT')
    await ok.getByTestId('notice-raw-toggle').click()
    await expect(ok.getByTestId('notice-raw')).toContainText('[IMPORTANT: Background process proc_5e6f7a8b9c0d')

    const watch = cards.nth(1)
    await expect(watch).toHaveAttribute('data-status', 'matched')
    await expect(watch.getByTestId('notice-pattern')).toContainText('ready in')
    await expect(watch.getByTestId('notice-pattern')).toContainText('4 earlier matches')
    await expect(watch.getByTestId('notice-output')).toHaveText('ready in 80ms')

    const own = cards.nth(2)
    await expect(own).toHaveAttribute('data-kind', 'process_complete')
    await expect(own).toHaveAttribute('data-status', 'failed')
    await expect(own.getByTestId('notice-status')).toHaveText('exit code 2')
    await expect(own.getByTestId('notice-output')).toHaveText('FAILED: 2 tests')
    await expect(own).not.toContainText('[Background process')

    const typed = transcript.messagesByRole('user').filter({ hasText: 'I saw this in my terminal' })
    await expect(typed).toHaveCount(1)
    await expect(typed).not.toHaveClass(/notice/)

    for (const card of await cards.all()) {
      expect(await card.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)
    }
    const found: Record<string, AxeViolation[]> = {}
    await scanThemes(page, 'process-cards', found)
    expect(found).toEqual({})
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
