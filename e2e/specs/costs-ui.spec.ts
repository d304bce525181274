import { readFileSync } from 'node:fs'
import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { CostsPage } from '../page-models/costs-page'

const dollars = (s: string) => Number(/\$([\d,]+\.\d\d)/.exec(s)?.[1]?.replace(/,/g, '') ?? NaN)

test('CSV export downloads rows that sum to the page total', async ({ page, host }) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  await shell.open(host.url)
  await costs.open()
  await costs.days(90)
  const total = dollars(await costs.inclusiveTotal())
  expect(total).toBeGreaterThan(0)
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('costs-export-csv').click()])
  expect(dl.suggestedFilename()).toBe('caduceus-costs-all-90d.csv')
  const lines = readFileSync((await dl.path())!, 'utf8')
    .trim()
    .split(/\r?\n/)
  expect(lines[0]).toBe('profile,sessions,own_usd,children_usd,inclusive_usd,status,complete')
  const rows = lines.slice(1).map((l) => l.split(','))
  expect(rows.map((r) => r[0]).sort()).toEqual(['default', 'research', 'work'])
  const sum = rows.reduce((n, r) => n + Number(r[4] || 0), 0)
  // The page shows cents (toFixed(2)); the rows carry 6 decimals: equal up to the page's own rounding.
  expect(Math.abs(sum - total)).toBeLessThanOrEqual(0.005 + 1e-9)

  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('costs-export-json').click()])
  const body = JSON.parse(readFileSync((await json.path())!, 'utf8'))
  expect(body).toMatchObject({ scope: 'all', days: 90 })
  expect(body.byDay.length).toBeGreaterThan(0)
})

test('a price override in Settings prices unpriced usage, labelled "custom price"', async ({ page, host }) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  await shell.open(host.url)
  await costs.open()
  await costs.days(90)
  await expect(page.getByTestId('costs-custom-priced')).toHaveCount(0)
  const before = dollars(await costs.inclusiveTotal())

  await shell.goTo('settings')
  const panel = page.getByTestId('price-overrides')
  await panel.getByTestId('price-add').click()
  await panel.getByTestId('price-model').last().fill('demo-model')
  await panel.getByTestId('price-input').last().fill('3')
  await panel.getByTestId('price-output').last().fill('15')
  // Enter in a price saves them, as in the Settings form above (Save is the form's submit)
  await panel.getByTestId('price-output').last().press('Enter')
  await expect(panel.getByRole('status')).toHaveText('Saved.')

  await costs.open()
  await costs.days(90)
  await expect(page.getByTestId('costs-custom-priced')).toContainText('custom price')
  await expect(page.getByTestId('costs-by-model').getByTestId('custom-price').first()).toBeVisible()
  expect(dollars(await costs.inclusiveTotal())).toBeGreaterThan(before)
  // the setting persists across a reload
  await page.reload()
  await shell.goTo('settings')
  await expect(page.getByTestId('price-model').first()).toHaveValue('demo-model')
})

test('clicking a chart bar filters the page to that profile', async ({ page, host }) => {
  const shell = new AppShell(page)
  const costs = new CostsPage(page)
  await shell.open(host.url)
  await costs.open()
  await costs.days(90)
  const bar = page.locator('[data-testid="costs-chart"] .recharts-bar-rectangle path').first()
  await bar.click()
  const active = page.locator('[data-testid^="profile-rail-item-"][aria-current="true"]')
  await expect(active).not.toHaveAttribute('data-testid', 'profile-rail-item-all')
  const profile = (await active.getAttribute('data-testid'))!.replace('profile-rail-item-', '')
  await expect(page.getByTestId('costs-profile-row')).toHaveCount(1)
  await expect(costs.profileRow(profile)).toBeVisible()
})
