import { expect, type Page } from '@playwright/test'

/** The Sessions page's Prune dialog: its fields by name (data-testid `prune-<field>`), preview and confirm. */
export class PruneDialog {
  constructor(readonly page: Page) {}

  get root() {
    return this.page.getByTestId('prune-dialog')
  }
  /** A filter field: `days`, `source`, `model`, `min-messages`, `after`, … */
  field(name: string) {
    return this.root.getByTestId(`prune-${name}`)
  }
  error(name: string) {
    return this.root.getByTestId(`prune-error-${name}`)
  }
  get status() {
    return this.root.getByTestId('prune-candidates').getByRole('status')
  }
  get candidates() {
    return this.root.getByTestId('prune-candidate')
  }
  get done() {
    return this.root.getByTestId('prune-done')
  }

  /** Open it from the keyboard: focus the page's Prune… button and press Enter; the age field takes focus. */
  async openByKeyboard(): Promise<void> {
    await this.page.getByTestId('prune-open').focus()
    await this.page.keyboard.press('Enter')
    await expect(this.field('days')).toBeFocused()
  }

  async open(): Promise<void> {
    await this.page.getByTestId('prune-open').click()
    await expect(this.root).toBeVisible()
  }

  /** The session ids the preview lists, sorted. */
  async shownIds(): Promise<string[]> {
    const ids = await this.candidates.evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')!))
    return ids.sort()
  }
}
