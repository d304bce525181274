import type { Locator, Page } from '@playwright/test'
import { test, expect } from '../fixtures/upstream-home-host'
import { AppShell } from '../page-models/app-shell'
import { CronPage } from '../page-models/cron-page'
import { SessionPage } from '../page-models/session-page'
import { SubagentsPage } from '../page-models/subagents-page'

// Homes upstream Hermes wrote, at the window's minimum width (900 px, src-main/index.ts) and, where a served host is
// opened in a phone's browser, at 390 px: nothing is cut off, laid over its neighbour or scrolled sideways.

/**
 * The app at 900 px with the profile rail open: opened wider and then narrowed (the rail only starts folded in a window
 * opened at 1100 px or less; the user can open it again at any width), the least room the page ever gets.
 */
async function narrowWithRail(page: Page, url: string): Promise<void> {
  await page.setViewportSize({ width: 1360, height: 860 })
  await new AppShell(page).open(url)
  await page.setViewportSize({ width: 900, height: 860 })
  await expect(page.locator('.shell')).not.toHaveClass(/rail-collapsed/)
}

/** Elements among `loc` whose content is wider than their box (cut text). */
async function clipped(loc: Locator): Promise<string[]> {
  return loc.evaluateAll((els) =>
    els
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => `${e.className}: "${(e.textContent ?? '').slice(0, 40)}" ${e.scrollWidth}>${e.clientWidth}`)
  )
}

test.describe('subagents', () => {
  test.use({ home: 'nous' })
  test('at 900 px the goal column keeps a readable width and every header and cost is whole', async ({
    page,
    host
  }) => {
    await narrowWithRail(page, host.url)
    const sub = new SubagentsPage(page)
    await sub.open()
    // upstream's async delegation and the child session it ran: one entry (the child's first message is the goal)
    await expect(sub.rows).toHaveCount(1)
    // the fixed columns used to leave the goal ~30 px: one letter a line, the child's id down the page
    for (const w of await page
      .locator('[data-testid="subagents-table"] td.goal')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width)))
      expect(w).toBeGreaterThan(140)
    expect(await clipped(page.locator('[data-testid="subagents-table"] th'))).toEqual([])
    expect(
      await clipped(
        page.locator('[data-testid="subagents-table"] td.c-cost, [data-testid="subagents-table"] .goal-sub')
      )
    ).toEqual([])
    // the row fits the page: nothing to scroll sideways to
    const wrap = page.locator('.subagents-page .table-wrap')
    expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)
  })
})

test.describe('cron', () => {
  test.use({ home: 'cron' })
  test("at 900 px upstream's jobs keep their actions on the page and each row's cells line up", async ({
    page,
    host
  }) => {
    await narrowWithRail(page, host.url)
    const cron = new CronPage(page)
    await cron.open()
    await expect(cron.jobs).toHaveCount(17)
    // upstream takes any text as a job's name: one with no place to break (snake_case, a pasted hash) pushed every column after it off
    // the page, Remove included
    const long = 'weekly_digest_of_'.repeat(10) + 'reports'
    await cron.jobs.first().getByTestId('cron-edit').click()
    await page.getByTestId('cron-name').fill(long)
    await page.getByTestId('cron-save').click()
    await expect(cron.job(long)).toHaveCount(1)
    // nothing to scroll sideways to: the table's own box could sit inside the page while its wrapper scrolled
    const wrap = page.locator('.cron-page .table-wrap')
    expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)
    // a delivery list (`local,discord:555`) or a long output path widened the table past the page
    const table = page.getByTestId('cron-table')
    const page_ = await page.getByTestId('page-cron').boundingBox()
    const box = await table.boundingBox()
    expect(box!.x + box!.width).toBeLessThanOrEqual(page_!.x + page_!.width + 0.5)
    const removes = page.getByTestId('cron-remove')
    for (let i = 0; i < 17; i++) {
      const b = await removes.nth(i).boundingBox()
      expect(b!.x + b!.width, `job ${i}'s Remove`).toBeLessThanOrEqual(900)
    }
    // the actions were a flex box in place of a table cell: its own height, the row's border cut short beside it
    const misfit = await cron.jobs.evaluateAll((rows) =>
      rows
        .map((r) => {
          const h = r.getBoundingClientRect().height
          return [...r.children].filter((c) => Math.abs(c.getBoundingClientRect().height - h) > 1).length
        })
        .filter((n) => n > 0)
    )
    expect(misfit).toEqual([])
  })
})

test.describe('tool timeline', () => {
  test.use({ home: 'tools' })
  test("a call at the turn's end keeps its mark inside the timeline's track; at 390 px the rows fit the transcript", async ({
    page,
    host
  }) => {
    await narrowWithRail(page, host.url)
    await new SessionPage(page).open('default', 'golden-tools-more')
    const calls = page.getByTestId('timeline-call')
    await expect(calls.first()).toBeVisible()
    const outside = await calls.evaluateAll((lis) =>
      lis
        .map((li, i) => {
          const track = li.querySelector('.tl-track')!.getBoundingClientRect()
          const bar = li.querySelector('.tl-bar')!.getBoundingClientRect()
          return bar.right > track.right + 0.5 || bar.left < track.left - 0.5
            ? `call ${i}: ${bar.right} > ${track.right}`
            : ''
        })
        .filter(Boolean)
    )
    expect(outside).toEqual([])
    // in a phone-sized browser (390 px) the facts beside each bar wrap: on one line they widened every row past the
    // transcript's edge, which then scrolled sideways
    await page.setViewportSize({ width: 390, height: 860 })
    await expect(calls.first()).toBeVisible()
    const transcript = page.getByTestId('transcript')
    expect(await transcript.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)
  })
})
