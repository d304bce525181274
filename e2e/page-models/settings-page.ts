import { expect, type Page } from '@playwright/test'

/** Provider settings per profile; the API key field is write-only. */
export class SettingsPage {
  constructor(readonly page: Page) {}

  async open(profile: string): Promise<void> {
    await this.page.evaluate((p) => {
      location.hash = `#/settings/${encodeURIComponent(p)}`
    }, profile)
    await expect(this.page.locator(`[data-testid="settings-form"][data-profile="${profile}"]`)).toBeVisible()
  }

  async fill(values: {
    provider?: string
    baseUrl?: string
    model?: string
    apiMode?: 'chat_completions' | 'anthropic_messages'
    apiKey?: string
    busyInputMode?: 'interrupt' | 'queue' | 'steer'
  }): Promise<void> {
    if (values.provider != null) await this.page.getByTestId('settings-provider').fill(values.provider)
    if (values.baseUrl != null) await this.page.getByTestId('settings-base-url').fill(values.baseUrl)
    if (values.model != null) await this.page.getByTestId('settings-model').fill(values.model)
    if (values.apiMode != null) await this.page.getByTestId('settings-api-mode').selectOption(values.apiMode)
    if (values.apiKey != null) await this.page.getByTestId('settings-api-key').fill(values.apiKey)
    if (values.busyInputMode != null)
      await this.page.getByTestId('settings-busy-input-mode').selectOption(values.busyInputMode)
  }

  async save(): Promise<void> {
    await this.page.getByTestId('settings-save').click()
  }

  /** "key set · …" / "no key · …". */
  async keyStatus(): Promise<string> {
    return (await this.page.getByTestId('settings-key-status').innerText()).trim()
  }
  fieldError(field: 'provider' | 'baseUrl' | 'model' | 'apiMode' | 'apiKey') {
    return this.page.getByTestId(`settings-error-${field}`)
  }
}
