// A finished background delegation reaches its session as a message nobody typed; the transcript shows it as an
// event card (goal, status, result per task), not as the raw "[Background delegation … finished]" text. Upstream's
// notice (its own formatter's text, test/fixtures/upstream/delegation-notices) and Caduceus's (a live delegation) both.
import { readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import type { SubagentList } from '@shared/contract'
import { test as demoTest, expect, startHost } from '../fixtures/host'
import { DESK, v31HomeWithDeskRows } from '../fixtures/v31-desk-home'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

const NOTICES = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../test/fixtures/upstream/delegation-notices/notices.json'), 'utf8')
) as Record<string, string>

demoTest.use({ bypassCSP: true }) // axe is injected as a script tag

demoTest(
  "upstream's notices are event cards at 900 px; a typed look-alike stays what the user typed",
  async ({ page }) => {
    const lookAlike = `${NOTICES.single_ok!.split('\n')[0]}\nI got this from a friend, what does it mean?`
    const home = v31HomeWithDeskRows('cad-e2e-notice-', [
      { content: NOTICES.single_ok! },
      { content: NOTICES.batch! },
      { content: NOTICES.single_interrupted! },
      { content: lookAlike }
    ])
    const host = await startHost({ home, demo: false })
    try {
      await page.setViewportSize({ width: 900, height: 860 })
      await new AppShell(page).open(host.url)
      const transcript = new SessionPage(page)
      await transcript.open('work', DESK)
      const cards = page.locator('[data-testid="message"][data-kind="upstream_delegation"]')
      await expect(cards).toHaveCount(3)
      const single = cards.nth(0)
      await expect(single).toHaveAttribute('data-status', 'completed')
      await expect(single.getByTestId('notice-status')).toHaveText('completed')
      await expect(single.getByTestId('notice-task')).toHaveCount(1)
      await expect(single.getByTestId('notice-task')).toContainText('Summarize open issues')
      await expect(single.getByTestId('notice-outcome')).toHaveText('Three issues are open:\n- #1 crash\n- #2 docs')
      // the header and upstream's instructions to the model are not the card's text; they stay one click away
      await expect(single).not.toContainText('[ASYNC DELEGATION')
      await expect(single).not.toContainText('You may have moved on')
      await single.getByTestId('notice-raw-toggle').click()
      await expect(single.getByTestId('notice-raw')).toContainText('[ASYNC DELEGATION COMPLETE — deleg_0a1b2c3d]')

      const batch = cards.nth(1)
      await expect(batch).toHaveAttribute('data-status', 'failed')
      await expect(batch.getByTestId('notice-task')).toHaveCount(2)
      await expect(batch.getByTestId('notice-task').nth(1)).toHaveAttribute('data-failed', 'true')
      await expect(batch.getByTestId('notice-task').nth(1)).toContainText('Name a colour')

      // the same header typed (or pasted) by a user, without the rest of upstream's shape: the user's message
      const typed = transcript.messagesByRole('user').filter({ hasText: 'I got this from a friend' })
      await expect(typed).toHaveCount(1)
      await expect(typed).not.toHaveClass(/notice/)

      // at the window's minimum width the cards fit the transcript
      for (const card of await cards.all()) {
        const box = (await card.boundingBox())!
        expect(await card.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)
        expect(box.x + box.width).toBeLessThanOrEqual(900)
      }
      // an interrupted delegation: the orange card, its mark and edge in its tone (not the green of success)
      const interrupted = cards.nth(2)
      await expect(interrupted).toHaveAttribute('data-status', 'interrupted')
      await expect(interrupted.getByTestId('notice-status')).toHaveText('interrupted')
      const tones = () =>
        cards.evaluateAll((els) =>
          els.map((e) => [
            e.getAttribute('data-status'),
            getComputedStyle(e.querySelector('.notice-icon')!).color === getComputedStyle(e).borderLeftColor
          ])
        )
      expect(await tones()).toEqual([
        ['completed', true],
        ['failed', true],
        ['interrupted', true]
      ])
      // scanned with the pointer on the orange card's fold (a hover tint over its background) and focus on the red
      // card's, as a keyboard user reaches it
      await batch.getByTestId('notice-raw-toggle').focus()
      await interrupted.getByTestId('notice-raw-toggle').hover()
      const found: Record<string, AxeViolation[]> = {}
      await scanThemes(page, 'notice-cards', found)
      expect(found).toEqual({})
    } finally {
      await host.close()
      rmSync(home, { recursive: true, force: true })
    }
  }
)

demoTest("Caduceus's own notice, delivered by a live background delegation, is a card too", async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  await shell.open(host.url)
  await shell.newChat('work')
  await session.send('Please delegate a survey of open pull requests to a subagent')
  await session.waitForTurnEnd()
  await expect
    .poll(
      async () => {
        const l = await api<SubagentList>(host.url, 'subagents.list', { profile: 'work' })
        return l.items.some((i) => i.goal.includes('survey of open pull requests') && i.state === 'retained')
      },
      { timeout: 20_000 }
    )
    .toBe(true)
  const card = page.locator('[data-testid="message"][data-kind="async_delegation_complete"]')
  await expect(card).toHaveCount(1, { timeout: 20_000 })
  await expect(card).toHaveAttribute('data-status', 'completed')
  await expect(card.getByTestId('notice-task')).toContainText('survey of open pull requests')
  await expect(card.getByTestId('notice-outcome')).not.toBeEmpty()
  await expect(card).not.toContainText('[Background delegation')
  await expect(card.getByTestId('notice-raw')).toHaveCount(0)
  // the delegation's child follows its notice
  await expect(page.getByTestId('child-card')).toHaveCount(1)
})
