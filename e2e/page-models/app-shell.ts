import { expect, type Page } from '@playwright/test'

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

  get errorToasts() {
    return this.page.getByTestId('toast-error')
  }
}
