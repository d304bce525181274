import { expect, type Locator, type Page } from '@playwright/test'

/** Gateway agent cache: one row per cached agent, Evict. */
export class GatewayPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.evaluate(() => {
      location.hash = '#/gateway'
    })
    await expect(this.page.getByTestId('page-gateway')).toBeVisible()
  }

  get agents(): Locator {
    return this.page.getByTestId('gateway-agent')
  }
  agentForSession(sessionId: string): Locator {
    return this.agents.filter({ has: this.page.locator(`a[href*="${encodeURIComponent(sessionId)}"]`) })
  }

  async evict(row: Locator): Promise<void> {
    const key = await row.getAttribute('data-key')
    await row.getByTestId('gateway-evict').click()
    await expect(this.page.locator(`[data-testid="gateway-agent"][data-key="${key}"]`)).toHaveCount(0)
  }
}
