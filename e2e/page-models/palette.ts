import { expect, type Page } from '@playwright/test'

/** The Ctrl/⌘+K command palette. */
export class Palette {
  constructor(readonly page: Page) {}
  get dialog() {
    return this.page.getByTestId('command-palette')
  }
  get input() {
    return this.page.getByTestId('palette-input')
  }
  get options() {
    return this.page.getByTestId('palette-option')
  }
  async open(): Promise<void> {
    await this.page.keyboard.press('Control+k')
    await expect(this.dialog).toBeVisible()
    await expect(this.input).toBeFocused()
  }
}
