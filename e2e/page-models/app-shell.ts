import { expect, type Locator, type Page } from '@playwright/test'

/** The shell around every page: profile rail, nav, connection indicator, theme toggle, toasts. */
export class AppShell {
  constructor(readonly page: Page) {}

  /** Open the app at a hash route, keeping the token the host put in the URL. */
  async open(baseUrl: string, hash = '#/sessions'): Promise<void> {
    await this.page.goto(baseUrl.replace(/#.*$/, '') + hash)
    await expect(this.connection).toHaveAttribute('data-state', 'connected')
  }

  get connection() {
    return this.page.getByTestId('connection-indicator')
  }
  profile(name: string | 'all') {
    return this.page.getByTestId(`profile-rail-item-${name}`)
  }

  async selectProfile(name: string | 'all'): Promise<void> {
    await this.profile(name).click()
    await expect(this.profile(name)).toHaveAttribute('aria-current', 'true')
  }

  async goTo(page: 'sessions' | 'subagents' | 'costs' | 'memory' | 'gateway' | 'settings'): Promise<void> {
    await this.page.getByTestId(`nav-${page}`).click()
    await expect(this.page.getByTestId(`page-${page}`)).toBeVisible()
  }

  async newChat(profile: string): Promise<void> {
    await this.profile(profile).hover()
    await this.page.getByTestId(`new-chat-${profile}`).click()
    await expect(this.page.getByTestId('new-chat')).toBeVisible()
  }

  async cycleTheme(): Promise<string> {
    await this.page.getByTestId('theme-toggle').click()
    return (await this.page.getByTestId('theme-toggle').getAttribute('data-theme-choice')) ?? 'system'
  }

  /**
   * Let the undo window a delete dialog promises ("You can undo for N seconds") run out without waiting it out:
   * jumps the page's clock by exactly N seconds, so the pending delete commits as it would after N real seconds.
   * Needs `page.clock.install()` before the page was opened; call it with the dialog still open.
   */
  async undoWindowPasses(dialog: Locator, confirm: Locator): Promise<void> {
    const promise = await dialog.getByText(/You can undo for \d+ seconds/).textContent()
    const ms = Number(/(\d+) seconds/.exec(promise ?? '')?.[1]) * 1000
    expect(ms).toBeGreaterThan(0)
    await confirm.click()
    await expect(this.page.getByTestId('undo-delete-bar')).toBeVisible()
    await this.page.clock.fastForward(ms)
  }

  get errorToasts() {
    return this.page.getByTestId('toast-error')
  }
}
