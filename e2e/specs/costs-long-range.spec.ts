// The Costs page past a year. Upstream's v31 golden home was written in December 2025, so all of its spend is older
// than the longest preset (365 days) and the page showed none of it; with spend four years old added, "All" reads
// every day of it, a bar a month, and a month opens its days.
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import type { CostSummary } from '@shared/contract'
import { test, expect, startHost } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { formatUsd } from '../../src-renderer/lib/format'
import { AppShell } from '../page-models/app-shell'
import { CostsPage } from '../page-models/costs-page'

const FIXTURE = resolve(import.meta.dirname, '../../test/fixtures/upstream/nous-v31')
const YEAR = 365 * 86400

test.use({ bypassCSP: true }) // axe is injected as a script tag

test('All and a custom period show spend older than a year, a bar a month, at 900 px', async ({ page }) => {
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-costs-long-'))
  cpSync(FIXTURE, home, { recursive: true })
  // spend four years old, written as upstream writes a session's totals
  const old = Math.floor(Date.now() / 1000 - 4 * YEAR)
  const db = new Database(join(home, 'profiles', 'work', 'state.db'))
  db.prepare(
    `INSERT INTO sessions (id, source, model, started_at, ended_at, last_activity_at, message_count, input_tokens,
      output_tokens, estimated_cost_usd, cost_status, api_call_count)
     VALUES ('old-spend', 'cli', 'gpt-old', ?, ?, ?, 2, 120000, 3000, 4.5, 'estimated', 3)`
  ).run(old, old + 60, old + 60)
  db.prepare(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('old-spend', 'user', 'hi', ?)`).run(
    old
  )
  db.close()
  const host = await startHost({ home, demo: false })
  try {
    const total = async (q: object) =>
      formatUsd((await api<CostSummary>(host.url, 'costs.summary', { profile: 'all', ...q })).total.usd ?? 0)
    await page.setViewportSize({ width: 900, height: 860 })
    const costs = new CostsPage(page)
    await new AppShell(page).open(host.url)
    await costs.open()

    // the longest preset: nothing (every session here is older than it)
    await costs.days(365)
    await expect(page.getByTestId('costs-chart-empty')).toBeVisible()

    // all of it: every dollar, one bar a month
    const all = await total({ all: true })
    expect(all).not.toBe('$0.00')
    await page.getByTestId('costs-days-all').click()
    await expect(page.getByTestId('costs-days-all')).toHaveAttribute('aria-pressed', 'true')
    await expect(page).toHaveURL(/days=all/)
    await expect(page.getByTestId('costs-inclusive-total')).toContainText(all)
    await expect(page.getByTestId('costs-period')).toHaveText('all time')
    await expect(page.getByTestId('costs-chart')).toContainText('Each bar is a month')
    await page.getByTestId('costs-tokens').locator('details summary').click()
    const months = page.getByTestId('costs-day-row')
    await expect(months.first()).toHaveAttribute('data-day', new Date(old * 1000).toISOString().slice(0, 8) + '01')
    await expect(months.last()).toHaveAttribute('data-day', '2025-12-01')

    // a month opens its days: that month as the period, a bar a day
    await months.last().getByRole('button').click()
    await expect(page).toHaveURL(/from=2025-12-01&to=2025-12-31/)
    await expect(page.getByTestId('costs-from')).toHaveValue('2025-12-01')
    await expect(page.getByTestId('costs-to')).toHaveValue('2025-12-31')
    await expect(page.getByTestId('costs-inclusive-total')).toContainText(
      await total({ from: '2025-12-01', to: '2025-12-31' })
    )
    await expect(page.getByTestId('costs-chart')).toContainText('Click a bar to show only that day')

    // a custom period around the old spend alone
    const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10)
    await page.getByTestId('costs-from').fill(day(old - 30 * 86400))
    await page.getByTestId('costs-to').fill(day(old + 30 * 86400))
    await expect(page.getByTestId('costs-inclusive-total')).toContainText('$4.50')

    // the toolbar's controls stay on the page at the window's narrowest, and the page passes axe
    for (const id of ['costs-days-all', 'costs-custom', 'costs-to', 'costs-export-json']) {
      const box = (await page.getByTestId(id).boundingBox())!
      expect(box.x + box.width, id).toBeLessThanOrEqual(900)
    }
    const found: Record<string, AxeViolation[]> = {}
    await scanThemes(page, 'costs-long', found)
    expect(found).toEqual({})
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
