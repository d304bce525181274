import { expect, type Locator, type Page } from '@playwright/test'

/** Cron: one row per job of the selected profile; a create/edit form with a schedule preview. */
export class CronPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.evaluate(() => {
      location.hash = '#/cron'
    })
    await expect(this.page.getByTestId('page-cron')).toBeVisible()
  }

  get jobs(): Locator {
    return this.page.getByTestId('cron-job')
  }
  job(name: string): Locator {
    return this.jobs.filter({ hasText: name })
  }

  async create(schedule: string, prompt: string, name: string): Promise<void> {
    await this.page.getByTestId('cron-new').click()
    await this.page.getByTestId('cron-schedule').fill(schedule)
    await expect(this.page.getByTestId('cron-preview')).toBeVisible()
    await this.page.getByTestId('cron-prompt').fill(prompt)
    await this.page.getByTestId('cron-name').fill(name)
    await this.page.getByTestId('cron-save').click()
    await expect(this.page.getByTestId('cron-form')).toHaveCount(0)
    await expect(this.job(name)).toHaveCount(1)
  }

  /** The remove question, which names the job. */
  get removeDialog(): Locator {
    return this.page.getByTestId('cron-remove-dialog')
  }

  async runNow(row: Locator): Promise<void> {
    await row.getByTestId('cron-run-now').click()
    await expect(row.getByTestId('cron-last-status')).toHaveText('ok', { timeout: 30_000 })
  }
}
