import { writtenHome } from '../fixtures/home-template'
import { test as base, expect, startHost, type RunningHost } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

const cents = (s: string | null) => Math.round(Number(/\$([\d,]+\.\d\d)/.exec(s ?? '')?.[1]?.replace(/,/g, '')) * 100)

const test = base.extend<{ host: RunningHost }>({
  host: async ({}, use) => {
    const host = await startHost({ template: writtenHome('e2e/fixtures/write-tool-home.ts'), demo: false })
    await use(host)
    await host.close()
  }
})

test("after a price override a session's own cost is the sum of its rows, each row priced by its own tokens", async ({
  page,
  host
}) => {
  await api(host.url, 'prices.set', {
    overrides: [{ model: 'demo-model', baseUrl: 'http://10.0.0.5:8000/v1', inputPerMTok: 1, outputPerMTok: 10 }]
  })
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  await s.open('default', 'two-endpoints')
  const rows = page.getByTestId('usage-row')
  await expect(rows).toHaveCount(2)
  // the two rows differ only by endpoint, and say so
  await expect(rows.getByTestId('usage-route')).toHaveText([' · api.example.com', ' · 10.0.0.5:8000'])
  // 20k input at $1/M + 2k output at $10/M = $0.04 for the unpriced endpoint, by ITS tokens
  await expect(rows.nth(1).getByTestId('usage-cost')).toContainText('$0.04')
  await expect(rows.nth(1).getByTestId('custom-price')).toBeVisible()
  const own = cents(await page.getByTestId('session-cost-own').textContent())
  const parts = await rows.getByTestId('usage-cost').allTextContents()
  expect(own).toBe(parts.map(cents).reduce((a, b) => a + b, 0))
  expect(own).toBe(9) // $0.045 + $0.040, shown as $0.05 + $0.04
})

test("a compression chain's header and panel cost the whole conversation, with each part's subtotal", async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  await s.open('default', 'chain-b')
  const panel = page.getByTestId('chain-cost')
  await expect(panel.getByTestId('chain-part')).toHaveCount(2)
  await expect(panel.getByTestId('chain-part-cost')).toHaveText(['$0.13', '$0.25'])
  await expect(panel.getByTestId('chain-total-cost')).toHaveText('$0.38')
  await expect(page.getByTestId('session-head-cost')).toHaveText('$0.38')
  await expect(page.getByTestId('session-head-cost-scope')).toHaveText('all 2 parts')
})

test('prices saved elsewhere (another window, the CLI of this host) re-price what this window shows: the list and the open session', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  const row = page.locator('[data-testid="session-row"][data-session-id="two-endpoints"]')
  await expect(row).toBeVisible()
  // one endpoint is unpriced: no custom price yet
  await expect(row.getByTestId('custom-price')).toHaveCount(0)
  await s.open('default', 'two-endpoints')
  const own = page.getByTestId('session-cost-own')
  await expect(own).toBeVisible()
  const before = cents(await own.textContent())

  // another window saves prices: this one hears prices.changed and reads again what it priced
  await api(host.url, 'prices.set', {
    overrides: [{ model: 'demo-model', baseUrl: 'http://10.0.0.5:8000/v1', inputPerMTok: 1, outputPerMTok: 10 }]
  })
  await expect.poll(async () => cents(await own.textContent())).toBe(before + 4) // + $0.04 for the unpriced endpoint
  await expect(page.getByTestId('usage-row').nth(1).getByTestId('custom-price')).toBeVisible()
  // the session list, cached while the session page was open, does not come back at the old prices
  await shell.goTo('sessions')
  await expect(row.getByTestId('custom-price')).toBeVisible()
})
