import { expect, type Locator, type Page } from '@playwright/test'
import type { SessionsPage } from './sessions-page'

/** Bulk selection on the Sessions page: row checkboxes (by `profile/id` key), the selection bar and its actions. */
export class SessionSelection {
  constructor(
    readonly page: Page,
    readonly sessions: SessionsPage
  ) {}

  box(key: string): Locator {
    return this.page.locator(`[data-row-key="${key}"] [data-testid="row-select"]`)
  }
  shell(key: string): Locator {
    return this.page.locator(`[data-row-key="${key}"]`)
  }
  get count(): Locator {
    return this.page.getByTestId('selection-count')
  }
  get bar(): Locator {
    return this.page.getByTestId('selection-bar')
  }

  /** `profile/id` of the i-th shown row. */
  async keyOf(i: number): Promise<string> {
    const row = this.sessions.rows.nth(i)
    return `${await row.getAttribute('data-profile')}/${await row.getAttribute('data-session-id')}`
  }

  /** Click row i's checkbox, then shift-click row j's: rows i..j end up selected. */
  async selectRange(i: number, j: number): Promise<string[]> {
    const keys: string[] = []
    for (let k = i; k <= j; k++) keys.push(await this.keyOf(k))
    await this.box(keys[0]!).click()
    await this.box(keys.at(-1)!).click({ modifiers: ['Shift'] })
    await expect(this.count).toHaveText(`${keys.length} selected`)
    for (const k of keys) await expect(this.box(k)).toBeChecked()
    return keys
  }
}

export const splitKey = (key: string) => {
  const [profile, ...rest] = key.split('/')
  return { profile: profile!, sessionId: rest.join('/') }
}
