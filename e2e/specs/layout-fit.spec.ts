import type { SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { MemoryPage } from '../page-models/memory-page'
import { SessionPage } from '../page-models/session-page'
import type { Locator } from '@playwright/test'

/** Elements among `loc` whose content is wider (or, for a line clamp, taller) than their box: cut text. */
async function clipped(loc: Locator): Promise<string[]> {
  return loc.evaluateAll((els) =>
    els
      .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
      .map((e) => `${e.getAttribute('data-testid') ?? e.className}: "${(e.textContent ?? '').slice(0, 40)}"`)
  )
}

/** Elements among `loc` that reach past the right edge of their nearest `.panel` card. */
async function outsideCard(loc: Locator): Promise<string[]> {
  return loc.evaluateAll((els) =>
    els
      .filter((e) => {
        const card = e.closest('.panel')
        return card && e.getBoundingClientRect().right > card.getBoundingClientRect().right + 0.5
      })
      .map((e) => `${e.tagName}.${e.className}: "${(e.textContent ?? '').slice(0, 40)}"`)
  )
}

/**
 * The lines a wrapping row takes (its children's boxes stacked by their vertical extent), and whether any child
 * reaches past its right edge (its padding included).
 */
async function rowLines(loc: Locator): Promise<{ lines: number; past: string[] }> {
  return loc.evaluate((row) => {
    const edge = row.getBoundingClientRect().right - parseFloat(getComputedStyle(row).paddingRight)
    const boxes = [...row.children]
      .map((c) => ({ c, r: c.getBoundingClientRect() }))
      .filter(({ r }) => r.height > 0)
      .sort((a, b) => a.r.top - b.r.top)
    let lines = 0
    let bottom = -Infinity
    for (const { r } of boxes) {
      if (r.top >= bottom - 1) lines++
      bottom = Math.max(r.top >= bottom - 1 ? r.bottom : bottom, r.bottom)
    }
    const past = boxes
      .filter(({ r }) => r.right > edge + 0.5)
      .map(({ c }) => c.getAttribute('data-testid') ?? c.className)
    return { lines, past }
  })
}

/**
 * The Sessions toolbar keeps its filters to one line below the search's (two at 900 px with the rail open, the dates
 * together), the Costs toolbar to two lines with "Custom…" open (the exports together); nothing past their edges.
 */
async function toolbarsFit(shell: AppShell, width: number): Promise<void> {
  const page = shell.page
  await shell.goTo('sessions')
  await expect(page.getByTestId('session-list')).toBeVisible()
  const narrow = width < 1024
  const sessions = page.locator('.sessions-page > .toolbar')
  // the search's line and the filters' block (its own lines counted next)
  expect(await rowLines(sessions), `sessions toolbar at ${width}`).toEqual({ lines: 2, past: [] })
  expect(await rowLines(page.getByTestId('session-filters')), `sessions filters at ${width}`).toEqual({
    lines: narrow ? 2 : 1,
    past: []
  })
  expect(await rowLines(page.getByTestId('filter-dates')), `sessions dates at ${width}`).toEqual({
    lines: 1,
    past: []
  })
  await shell.goTo('costs')
  const custom = page.getByTestId('costs-custom')
  if ((await custom.getAttribute('aria-expanded')) !== 'true') await custom.click()
  await expect(page.getByTestId('costs-from')).toBeVisible()
  await expect(page.getByTestId('costs-partial-note')).toBeVisible()
  const costs = page.locator('.costs-page > .toolbar')
  expect(await rowLines(costs), `costs toolbar at ${width}`).toEqual({ lines: 2, past: [] })
  expect(await rowLines(page.getByRole('group', { name: 'Export' })), `costs exports at ${width}`).toEqual({
    lines: 1,
    past: []
  })
}

// Issue #26 item 2: what fits is never cut, at the two widths the review used.
test('at 1024 and 1360 px titles, tables and ids are whole and inside their cards', async ({ page, host }) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  const memory = new MemoryPage(page)
  const research = (await api<Page>(host.url, 'sessions.list', { profile: 'research', limit: 1 })).items[0]!
  await page.setViewportSize({ width: 1360, height: 860 })
  await shell.open(host.url)
  // a memory turn, so the Memory page has provider health and feed rows to lay out
  await session.open('research', research.id)
  await session.send('Please remember that the lab meeting moved to Thursdays')
  await session.waitForTurnEnd()
  const long = (await api<Page>(host.url, 'sessions.list', { profile: 'work', limit: 20 })).items.find((s) =>
    s.title?.startsWith('Review PR #412')
  )!

  for (const width of [1024, 1360]) {
    await page.setViewportSize({ width, height: 860 })
    await session.open('work', long.id)
    // the title is shown whole (no clamp needed at these widths), its text also in the tooltip
    await expect(session.title).toHaveText(long.title!)
    await expect(session.title).toHaveAttribute('title', long.title!)
    expect(await clipped(session.title), `title at ${width}`).toEqual([])
    // it fits on one line here, so it takes one: badges and actions wrap below it instead
    const lines = await session.title.evaluate(
      (e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)
    )
    expect(lines, `title lines at ${width}`).toBeLessThan(1.5)
    // the details: a side column at 1360, a drawer behind the Details button at 1024
    const side = page.locator('.session-side')
    const toggle = page.getByTestId('session-details-toggle')
    if (width === 1024) {
      await expect(side).toBeHidden()
      await toggle.click()
    } else await expect(toggle).toBeHidden()
    await expect(side).toBeVisible()
    expect(await outsideCard(side.locator('table')), `details at ${width}`).toEqual([])
    if (width === 1024) {
      await page.getByTestId('session-details-close').click()
      await expect(side).toBeHidden()
      await expect(toggle).toBeFocused()
    }

    await toolbarsFit(shell, width)
    await expect(page.getByTestId('costs-top-session').first()).toBeVisible()
    const costTables = page.locator(
      '[data-testid="costs-by-profile"], [data-testid="costs-by-model"], [data-testid="costs-top-sessions"]'
    )
    expect(await outsideCard(costTables), `costs tables at ${width}`).toEqual([])
    expect(await clipped(costTables.locator('td.num, th.num')), `costs numbers at ${width}`).toEqual([])

    await shell.goTo('subagents')
    await expect(page.getByTestId('subagent-row').first()).toBeVisible()
    const ids = page.locator('[data-testid="subagent-row"] .child-id')
    expect(await clipped(ids), `subagent ids at ${width}`).toEqual([])
    for (const row of await page.getByTestId('subagent-row').all())
      await expect(row.locator('.child-id')).toHaveText((await row.getAttribute('data-child-id'))!)

    await shell.goTo('memory')
    await shell.selectProfile('research')
    await expect(page.locator('[data-testid="memory-health-row"]').first()).toBeVisible()
    await expect(memory.eventsOf('research').first()).toBeVisible()
    const health = page.getByTestId('memory-health')
    expect(await outsideCard(health.locator('*')), `memory health at ${width}`).toEqual([])
    expect(await clipped(health), `memory health card at ${width}`).toEqual([])
    // session names in the feed: cut with an ellipsis inside their column, the whole name in the tooltip
    const name = page.getByTestId('memory-event-session').first()
    await expect(name).toHaveCSS('text-overflow', 'ellipsis')
    await expect(name).toHaveAttribute('title', `${await name.textContent()} · ${research.id}`)
    expect(await outsideCard(page.locator('[data-testid="memory-event"] > *')), `feed at ${width}`).toEqual([])
    await shell.selectProfile('all')
  }
})

// At the window's minimum width (900 px) with the profile rail open, the top bar's last items (the connection state
// and the theme switch) ran past the window's edge: "connected" read "co" and the theme switch could not be reached.
test('at 900 px with the rail open, and at 390 px, the whole top bar is on screen, its connection state still named; toolbars fit', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  await page.setViewportSize({ width: 1360, height: 860 })
  await shell.open(host.url)
  await page.setViewportSize({ width: 900, height: 860 })
  await expect(page.locator('.shell')).not.toHaveClass(/rail-collapsed/)
  for (const id of ['nav-settings', 'topbar-new-chat', 'connection-indicator', 'theme-toggle']) {
    const box = (await page.getByTestId(id).boundingBox())!
    expect(box.x + box.width, id).toBeLessThanOrEqual(900)
  }
  expect(await page.locator('.topbar').evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0)
  await expect(shell.connection).toHaveText('connected')
  // the Sessions filters took three lines here, and the Costs exports split across two with "Custom…" open
  await toolbarsFit(shell, 900)
  await page.getByTestId('theme-toggle').click()
  // a phone's browser on a served host (390 px, the rail down to its avatars): the tabs alone are wider than the bar, so the bar
  // wraps rather than leaving Settings, New chat and the theme switch past the edge of a shell that does not scroll
  await page.setViewportSize({ width: 390, height: 860 })
  for (const id of ['nav-settings', 'topbar-new-chat', 'connection-indicator', 'theme-toggle']) {
    const box = (await page.getByTestId(id).boundingBox())!
    expect(box.x + box.width, `${id} at 390 px`).toBeLessThanOrEqual(390)
  }
  expect(await page.locator('.shell').evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0)
  // the list's fixed columns (model, count, time, cost) left its titles 0 px wide there: every row read "—"
  await shell.goTo('sessions')
  const titles = page.locator('[data-testid="session-row"] .row-title')
  await expect(titles.first()).toBeVisible()
  for (const w of await titles.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width)))
    expect(w, 'a session title at 390 px').toBeGreaterThan(150)
  const list = page.getByTestId('session-list')
  expect(await list.evaluate((e) => e.scrollWidth - e.clientWidth), 'the list at 390 px').toBeLessThanOrEqual(1)
  // one profile's Memory page: its cards (one column here) were as wide as the widest one's content, past the screen
  await shell.goTo('memory')
  await shell.selectProfile('research')
  await expect(page.getByTestId('memory-entries')).toBeVisible()
  const cards = page.locator('.memory-page .panel')
  for (const r of await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right)))
    expect(r, 'a Memory card at 390 px').toBeLessThanOrEqual(390)
  expect(await outsideCard(cards.locator('*')), 'Memory at 390 px').toEqual([])
})
