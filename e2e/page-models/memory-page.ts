import { expect, type Locator, type Page } from '@playwright/test'

/** Memory: live activity feed with filters, built-in entries (one profile at a time), provider health. */
export class MemoryPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.evaluate(() => {
      location.hash = '#/memory'
    })
    await expect(this.page.getByTestId('memory-feed')).toBeVisible()
  }

  get events(): Locator {
    return this.page.getByTestId('memory-event')
  }
  eventsOf(profile: string): Locator {
    return this.page.locator(`[data-testid="memory-event"][data-profile="${profile}"]`)
  }
  eventsOfKind(kind: string): Locator {
    return this.page.locator(`[data-testid="memory-event"][data-kind="${kind}"]`)
  }

  async filterKind(kind: string | ''): Promise<void> {
    await this.page.getByTestId('memory-filter-kind').selectOption(kind)
  }
  async filterProvider(provider: string | ''): Promise<void> {
    await this.page.getByTestId('memory-filter-provider').selectOption(provider)
  }
  async filterSession(sessionId: string): Promise<void> {
    await this.page.getByTestId('memory-filter-session').fill(sessionId)
  }
  async refusalsOnly(on: boolean): Promise<void> {
    await this.page.getByTestId('memory-filter-refusals').setChecked(on)
  }

  async openEventSession(index = 0): Promise<void> {
    await this.events.nth(index).getByTestId('memory-event-session').click()
    await expect(this.page.getByTestId('transcript')).toBeVisible()
  }

  get entries(): Locator {
    return this.page.getByTestId('memory-entry')
  }
  /** True under "All": edits are disabled until one profile is selected. */
  async editingDisabled(): Promise<boolean> {
    return this.page.getByTestId('memory-entries-disabled').isVisible()
  }
  async target(t: 'memory' | 'user'): Promise<void> {
    await this.page.getByTestId(`memory-target-${t}`).click()
  }

  async entryTexts(): Promise<string[]> {
    return (await this.entries.locator('.entry-text').allInnerTexts()).map((s) => s.trim())
  }

  async addEntry(text: string): Promise<void> {
    const before = await this.entries.count()
    await this.page.getByTestId('memory-add-input').fill(text)
    await this.page.getByTestId('memory-add').click()
    await expect(this.entries).toHaveCount(before + 1)
  }

  async editEntry(index: number, text: string): Promise<void> {
    await this.entries.nth(index).getByTestId('memory-entry-edit').click()
    await this.page.getByTestId('memory-entry-input').fill(text)
    await this.page.getByTestId('memory-entry-save').click()
    await expect(this.entries.nth(index).locator('.entry-text')).toHaveText(text)
  }

  async removeEntry(index: number): Promise<void> {
    const before = await this.entries.count()
    await this.entries.nth(index).getByTestId('memory-entry-remove').click()
    await expect(this.entries).toHaveCount(before - 1)
  }

  /** How full the shown file is: the meter (role meter, with its value) and its figure ("92 / 2,200 chars"). */
  get usageMeter(): Locator {
    return this.page.getByTestId('memory-usage').getByRole('meter')
  }
  get usageFigure(): Locator {
    return this.page.getByTestId('memory-usage-figure')
  }
  /** The figure and the meter's value both say `used` of `limit` characters. */
  async expectUsage(used: number, limit: number): Promise<void> {
    const n = (v: number) => v.toLocaleString('en-US')
    await expect(this.usageFigure).toHaveText(new RegExp(`^${n(used)} / ${n(limit)} chars`))
    await expect(this.usageMeter).toHaveAttribute('aria-valuenow', String(Math.min(used, limit)))
    await expect(this.usageMeter).toHaveAttribute('aria-valuemax', String(limit))
    await expect(this.usageMeter).toHaveAttribute('aria-valuetext', new RegExp(`^${n(used)} of ${n(limit)} characters`))
  }

  get editError(): Locator {
    return this.page.getByTestId('memory-edit-error')
  }
  /** Pick the profile's external provider (writes config.yaml `memory.provider`). */
  async chooseProvider(name: string | ''): Promise<void> {
    await this.page.getByTestId('memory-provider-select').selectOption(name)
    await expect(this.page.getByTestId('memory-provider-select')).toHaveValue(name)
  }
  get providerStatus(): Locator {
    return this.page.getByTestId('memory-provider-status')
  }
  healthRow(provider: string): Locator {
    return this.page.locator(`[data-testid="memory-health-row"][data-provider="${provider}"]`)
  }
}
