import { test, expect } from '../fixtures/upstream-home-host'
import { AppShell } from '../page-models/app-shell'
import { PruneDialog } from '../page-models/prune-dialog'
import { SessionPage } from '../page-models/session-page'
import { SessionsPage } from '../page-models/sessions-page'

// What the Sessions page says about homes upstream Hermes wrote: counts read as a person would say them.

test.describe('search', () => {
  test.use({ home: 'nous' })
  test('a search only session titles match says so, not "0 matching messages in 2 sessions"', async ({
    page,
    host
  }) => {
    await new AppShell(page).open(host.url)
    const sessions = new SessionsPage(page)
    // "heater" is in two titles (the plan and its /branch) and in no message
    await sessions.search('heater')
    await expect(page.getByTestId('search-hit')).toHaveCount(0)
    await expect(page.getByTestId('search-summary')).toHaveText('2 sessions with a matching title; no message matches')
    // a message hit and a title-only session: the messages, then the title find apart
    await sessions.search('pre-charge OR heater')
    await expect(page.getByTestId('search-summary')).toHaveText(
      /^\d+ matching messages? in \d+ sessions? · 1 more session with a matching title$/
    )
  })
})

test.describe('prune', () => {
  test.use({ home: 'fidelity' })
  test('the preview counts one message as "1 message"', async ({ page, host }) => {
    const shell = new AppShell(page)
    await shell.open(host.url)
    await shell.selectProfile('default')
    const prune = new PruneDialog(page)
    await prune.openByKeyboard()
    await prune.field('days').fill('1')
    await prune.root.getByTestId('prune-preview').click()
    const one = prune.root.locator('[data-testid="prune-candidate"][data-session-id="dg-old"]')
    await expect(one).toContainText('· 1 message ·')
    await expect(prune.root.locator('[data-testid="prune-candidate"][data-session-id="ancient"]')).toContainText(
      '· 2 messages ·'
    )
  })
})

test.describe('transcript', () => {
  test.use({ home: 'tools' })
  test("a call's summary line reads a list of plain values as a list, not as JSON", async ({ page, host }) => {
    // tall enough that the whole session's folded calls are rendered (the transcript renders what is in view)
    await page.setViewportSize({ width: 1360, height: 3200 })
    await new AppShell(page).open(host.url)
    await new SessionPage(page).open('default', 'golden-tools-more')
    const clarify = page
      .getByTestId('tool-call')
      .filter({ has: page.locator('.tool-name').getByText('clarify', { exact: true }) })
    await expect(clarify.locator('.tool-args-preview')).toHaveText('question: Which branch? · choices: main, dev')
    const previews = await page.locator('.tool-args-preview').allInnerTexts()
    expect(previews.length).toBeGreaterThan(20)
    expect(previews.filter((p) => /: \["/.test(p))).toEqual([])
  })
})
