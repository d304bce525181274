import { expect, type Locator, type Page } from '@playwright/test'

/** Costs overview: totals with status, per profile, per model, top sessions, daily chart. */
export class CostsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.evaluate(() => {
      location.hash = '#/costs'
    })
    await expect(this.page.getByTestId('costs-inclusive-total')).toBeVisible()
  }

  async days(n: 7 | 30 | 90 | 365): Promise<void> {
    await this.page.getByTestId(`costs-days-${n}`).click()
    await expect(this.page.getByTestId(`costs-days-${n}`)).toHaveAttribute('aria-pressed', 'true')
    // the button turns on at the click; the totals are that range's only once its summary has arrived
    await expect(this.page.locator('.costs-page')).toHaveAttribute('aria-busy', 'false')
  }

  private async text(l: Locator): Promise<string> {
    return (await l.innerText()).replace(/\s+/g, ' ').trim()
  }
  async ownTotal(): Promise<string> {
    return this.text(this.page.getByTestId('costs-own-total'))
  }
  async inclusiveTotal(): Promise<string> {
    return this.text(this.page.getByTestId('costs-inclusive-total'))
  }
  async childrenTotal(): Promise<string> {
    return this.text(this.page.getByTestId('costs-children-total'))
  }
  /** e.g. "estimated · complete", "partial", "unpriced", "billed". */
  async status(): Promise<string> {
    return this.text(this.page.getByTestId('costs-status'))
  }

  profileRow(profile: string): Locator {
    return this.page.locator(`[data-testid="costs-profile-row"][data-profile="${profile}"]`)
  }
  async profileCells(profile: string): Promise<{ own: string; children: string; inclusive: string; sessions: string }> {
    const cells = (await this.profileRow(profile).locator('td').allInnerTexts()).map((s) =>
      s.replace(/\s+/g, ' ').trim()
    )
    return { own: cells[1]!, children: cells[2]!, inclusive: cells[3]!, sessions: cells[4]! }
  }

  get topSessions(): Locator {
    return this.page.getByTestId('costs-top-session')
  }
  get chart(): Locator {
    return this.page.getByTestId('costs-chart')
  }
  async openTopSession(sessionId: string): Promise<void> {
    await this.page.locator(`[data-testid="costs-top-session"][data-session-id="${sessionId}"] a`).click()
    await expect(this.page.getByTestId('transcript')).toBeVisible()
  }

  /** The by-model table's Total row (cents). */
  async byModelTotal(): Promise<string> {
    return this.text(this.page.getByTestId('costs-by-model-total'))
  }
  /** Opens the per-day table (tokens and cost per day) and returns its rows. */
  async dayTable(): Promise<Array<{ day: string; cost: string }>> {
    const t = this.page.getByTestId('costs-by-day')
    if (!(await t.isVisible())) await this.page.getByText('Per-day table').click()
    const rows = this.page.getByTestId('costs-day-row')
    const out: Array<{ day: string; cost: string }> = []
    for (const r of await rows.all())
      out.push({ day: (await r.getAttribute('data-day'))!, cost: await this.text(r.getByTestId('costs-day-cost')) })
    return out
  }
  async dayTableTotal(): Promise<string> {
    return this.text(this.page.getByTestId('costs-day-total-cost'))
  }
  get dayFilter(): Locator {
    return this.page.getByTestId('costs-day-filter')
  }
  get tokensChart(): Locator {
    return this.page.getByTestId('costs-tokens-chart')
  }
}
