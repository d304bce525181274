import { readFileSync } from 'node:fs'
import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { CostsPage } from '../page-models/costs-page'
import { SessionPage } from '../page-models/session-page'
import { axeViolations } from '../fixtures/axe'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

const dollars = (s: string) => Number(/\$([\d,]+\.\d\d)/.exec(s)?.[1]?.replace(/,/g, '') ?? NaN)
// The priced part of an amount: a day whose usage all lacks a price reads "$0.00 + unpriced" in the per-day table and
// "unpriced" on the total card. Which day the first bar is depends on the date the demo home was made, so both occur.
const pricedPart = (s: string) => (/\$/.test(s) ? dollars(s) : /unpriced/.test(s) ? 0 : NaN)

// Issue 14 bug: "Costs total (inclusive) $6.39 vs by-model total $6.40". One money rule: every total on the page
// is the same sum of integer micro-dollars, rounded once.
test('inclusive total, by-model total, per-day total and the CSV agree to the cent', async ({ page, host }) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  await shell.open(host.url)
  await costs.open()
  await costs.days(90)
  const total = await costs.inclusiveTotal()
  expect(dollars(total)).toBeGreaterThan(0)
  expect(await costs.byModelTotal()).toBe(total)
  const days = await costs.dayTable()
  expect(days.length).toBeGreaterThan(1)
  expect(dollars(await costs.dayTableTotal())).toBe(dollars(total))

  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('costs-export-csv').click()])
  const rows = readFileSync((await dl.path())!, 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((l) => l.split(','))
  const micros = rows.reduce((n, r) => n + Math.round(Number(r[4] || 0) * 1e6), 0)
  // whole cents, half up, from integer micro-dollars: the app's rule (toFixed would round 12.065 down in binary)
  expect(`$${(Math.round(micros / 1e4) / 100).toFixed(2)}`).toBe(total)

  // the report: rows per day, per session (every one, not the page's top 10) and per model, each kind summing to
  // the same total in integer micro-dollars
  const [rep] = await Promise.all([page.waitForEvent('download'), page.getByTestId('costs-export-report').click()])
  const lines = readFileSync((await rep.path())!, 'utf8')
    .trim()
    .split(/\r?\n/)
  const head = lines[0]!.split(',')
  const cells = lines.slice(1).map((l) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '')))
  const at = (name: string) => head.indexOf(name)
  const sessions = cells.filter((r) => r[0] === 'session')
  expect(sessions.length).toBeGreaterThan(10)
  for (const kind of ['day', 'session', 'model']) {
    const rows = cells.filter((r) => r[0] === kind)
    expect(rows.length, kind).toBeGreaterThan(0)
    const sum = rows.reduce((n, r) => n + Number(r[at('cost_micros')] || 0), 0)
    expect(`$${(Math.round(sum / 1e4) / 100).toFixed(2)}`, kind).toBe(total)
  }
})

test('tokens and cache per day; a click on a bar filters the page to that day, in the URL, with a chip to clear', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  await shell.open(host.url)
  await costs.open()
  await costs.days(90)
  await expect(costs.tokensChart).toBeVisible()
  const full = await costs.inclusiveTotal()
  const perDay = new Map((await costs.dayTable()).map((d) => [d.day, d.cost]))
  for (const label of ['Input', 'Output', 'Cache read', 'Cache write', 'Reasoning'])
    await expect(page.getByTestId('costs-by-day').getByRole('columnheader', { name: label })).toBeVisible()

  await costs.tokensChart.locator('.recharts-bar-rectangle path').first().click()
  await expect(costs.dayFilter).toBeVisible()
  await expect(page).toHaveURL(/#\/costs\?.*day=\d{4}-\d{2}-\d{2}/)
  const day = /day=(\d{4}-\d{2}-\d{2})/.exec(page.url())![1]!
  await expect(costs.dayFilter).toContainText(day)
  // the page now shows that day only, and its totals still agree
  await expect.poll(async () => pricedPart(await costs.inclusiveTotal())).toBe(pricedPart(perDay.get(day) ?? '$0.00'))
  expect(await costs.byModelTotal()).toBe(await costs.inclusiveTotal())
  // the per-day table shows that day only, its Total row the page's total (no other day's tokens without a cost)
  await expect.poll(async () => (await costs.dayTable()).map((d) => d.day)).toEqual([day])
  expect(pricedPart(await costs.dayTableTotal())).toBe(pricedPart(await costs.inclusiveTotal()))
  // the chip, the open per-day table and its day buttons pass axe too
  await expect(page.getByTestId('costs-by-day')).toBeVisible()
  expect(await axeViolations(page)).toEqual([])

  // the filter survives a reload (it lives in the URL)
  await page.reload()
  await expect(costs.dayFilter).toContainText(day)
  await expect.poll(async () => pricedPart(await costs.inclusiveTotal())).toBe(pricedPart(perDay.get(day) ?? '$0.00'))

  await page.getByTestId('costs-day-clear').click()
  await expect(costs.dayFilter).toHaveCount(0)
  await expect(page).not.toHaveURL(/day=/)
  await expect.poll(() => costs.inclusiveTotal()).toBe(full)
})

test('a price override set in Settings shows as "custom price" on Top sessions and on the session page', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  await shell.open(host.url)
  await shell.goTo('settings')
  const panel = page.getByTestId('price-overrides')
  await panel.getByTestId('price-add').click()
  await panel.getByTestId('price-model').last().fill('demo-model')
  // dear enough that the sessions it prices reach the top ten
  await panel.getByTestId('price-input').last().fill('5000')
  await panel.getByTestId('price-output').last().fill('5000')
  await panel.getByTestId('price-save').click()
  await expect(panel.getByRole('status')).toHaveText('Saved.')

  await costs.open()
  await costs.days(90)
  const priced = costs.topSessions.filter({ has: page.getByTestId('custom-price') })
  await expect(priced.first()).toBeVisible()
  // A session whose own cost is its whole cost: the custom price is then its own (the session list shows own cost),
  // not only its children's (which top ten the demo home's clock-relative data puts first varies with the hour).
  let row = priced.first()
  for (const r of await priced.all()) {
    const cells = r.locator('td')
    if (dollars(await cells.nth(1).innerText()) === dollars(await cells.nth(2).innerText())) {
      row = r
      break
    }
  }
  const sessionId = (await row.getAttribute('data-session-id'))!
  const inclusive = dollars(await row.locator('td').nth(2).innerText())
  expect(dollars(await row.locator('td').nth(1).innerText())).toBe(inclusive)
  expect(inclusive).toBeGreaterThan(0)
  await costs.openTopSession(sessionId)

  const session = new SessionPage(page)
  await expect(session.transcript).toBeVisible()
  const head = page.getByTestId('session-head-cost')
  await expect(head.getByTestId('custom-price')).toBeVisible()
  // A chain's header covers every part ("all N parts"); the panel's Inclusive row is this session's, as the row is.
  const wholeChain = (await page.getByTestId('session-head-cost-scope').count()) > 0
  if (!wholeChain) expect(dollars(await head.innerText())).toBe(inclusive)
  else expect(dollars(await head.innerText())).toBeGreaterThanOrEqual(inclusive)
  expect(dollars(await page.getByTestId('session-cost-inclusive').innerText())).toBe(inclusive)
  await expect(page.getByTestId('session-cost-inclusive').getByTestId('custom-price')).toBeVisible()

  // the session list prices the same session: narrowed to its id (the list is virtualized, and which rows are on
  // screen depends on what else ran in the demo home since it was made); a compressed part is listed by its own id
  await shell.goTo('sessions')
  await page.getByTestId('filter-include-children').check()
  // Top sessions rank archived sessions too (the demo archives some, and which reach the top ten moves with the clock)
  await page.getByTestId('filter-archived').selectOption('include')
  await page.getByTestId('filter-id-prefix').fill(sessionId)
  const listed = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`)
  await expect(listed).toHaveCount(1)
  await expect(listed.getByTestId('session-cost').getByTestId('custom-price')).toBeVisible()
})
