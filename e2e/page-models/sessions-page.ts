import { expect, type Locator, type Page } from '@playwright/test'

/** Sessions list: virtualized rows, filters, full-text search. */
export class SessionsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.evaluate(() => {
      location.hash = '#/sessions'
    })
    await expect(this.page.getByTestId('page-sessions')).toBeVisible()
  }

  get rows(): Locator {
    return this.page.getByTestId('session-row')
  }
  row(sessionId: string): Locator {
    return this.page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`)
  }
  get searchInput(): Locator {
    return this.page.getByTestId('search-input')
  }
  get hits(): Locator {
    return this.page.getByTestId('search-hit')
  }

  async waitForRow(sessionId: string): Promise<Locator> {
    await expect(this.row(sessionId)).toBeVisible()
    return this.row(sessionId)
  }

  async openSession(sessionId: string): Promise<void> {
    await (await this.waitForRow(sessionId)).click()
    await expect(this.page.getByTestId('transcript')).toBeVisible()
  }

  /** Title (or first-message preview) shown for a row. */
  async rowTitle(sessionId: string): Promise<string> {
    return (await this.row(sessionId).locator('.row-title').innerText()).trim()
  }

  /** Cost cell text: `$x.xx`, `<$0.01`, `unpriced`, `—`, optionally followed by `partial`. */
  async rowCost(sessionId: string): Promise<string> {
    return (await this.row(sessionId).getByTestId('session-cost').innerText()).replace(/\s+/g, ' ').trim()
  }

  async search(text: string): Promise<void> {
    await this.searchInput.fill(text)
    await expect(this.page.getByTestId('search-results').or(this.page.getByTestId('search-empty'))).toBeVisible()
  }

  async clearSearch(): Promise<void> {
    await this.searchInput.fill('')
    await expect(this.page.getByTestId('session-list').or(this.page.getByTestId('sessions-empty'))).toBeVisible()
  }

  /** Highlighted parts of each hit's snippet. */
  async highlightedTerms(): Promise<string[]> {
    return this.hits.locator('mark').allInnerTexts()
  }

  async openHit(index = 0): Promise<{ sessionId: string; messageId: number }> {
    const hit = this.hits.nth(index)
    const sessionId = (await hit.getAttribute('data-session-id'))!
    const messageId = Number(await hit.getAttribute('data-message-id'))
    await hit.click()
    await expect(this.page.locator(`[data-testid="message"][data-message-id="${messageId}"]`)).toHaveAttribute(
      'data-focused',
      'true'
    )
    return { sessionId, messageId }
  }

  async filterSource(source: string | ''): Promise<void> {
    await this.page.getByTestId('filter-source').selectOption(source)
  }
  async filterArchived(mode: 'exclude' | 'include' | 'only'): Promise<void> {
    await this.page.getByTestId('filter-archived').selectOption(mode)
  }
  async filterIdPrefix(prefix: string): Promise<void> {
    await this.page.getByTestId('filter-id-prefix').fill(prefix)
  }
  async includeChildren(on: boolean): Promise<void> {
    await this.page.getByTestId('filter-include-children').setChecked(on)
  }

  /** Scroll the virtual list to the bottom (triggers the next keyset page). */
  async scrollToEnd(): Promise<void> {
    await this.page.getByTestId('session-list').evaluate((el) => {
      el.scrollTop = el.scrollHeight
    })
  }

  async scrollTop(): Promise<number> {
    return this.page.getByTestId('session-list').evaluate((el) => el.scrollTop)
  }
}
