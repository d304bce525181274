import { expect, type Locator, type Page } from '@playwright/test'

export type SubagentTab = 'all' | 'running' | 'retained' | 'tombstoned' | 'expired'

/** Subagents across profiles: tabs, TTL countdowns, follow-up and tombstone dialogs. */
export class SubagentsPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.evaluate(() => {
      location.hash = '#/subagents'
    })
    await expect(this.page.getByTestId('page-subagents')).toBeVisible()
  }

  get rows(): Locator {
    return this.page.getByTestId('subagent-row')
  }
  row(childId: string): Locator {
    return this.page.locator(`[data-testid="subagent-row"][data-child-id="${childId}"]`)
  }

  async tab(tab: SubagentTab): Promise<void> {
    await this.page.getByTestId(`subagents-tab-${tab}`).click()
    await expect(this.page.getByTestId(`subagents-tab-${tab}`)).toHaveAttribute('aria-selected', 'true')
  }

  async showTombstoned(on: boolean): Promise<void> {
    await this.page.getByTestId('show-tombstoned').setChecked(on)
  }

  async stateOf(childId: string): Promise<string> {
    return (await this.row(childId).getAttribute('data-state'))!
  }

  async waitForState(childId: string, state: string): Promise<void> {
    await expect(this.row(childId)).toHaveAttribute('data-state', state)
  }

  async ttl(childId: string): Promise<string> {
    return (await this.row(childId).getByTestId('subagent-ttl').innerText()).trim()
  }

  async openTranscript(childId: string): Promise<void> {
    await this.row(childId).getByTestId('subagent-open').click()
    await expect(this.page.getByTestId('transcript')).toBeVisible()
  }

  /** Open the follow-up dialog and wait for the size/cost estimate. */
  async startFollowUp(childId: string): Promise<{ estimate: string; large: boolean }> {
    await this.row(childId).getByTestId('followup-open').click()
    const est = this.page.getByTestId('followup-estimate')
    await expect(est).not.toHaveText(/Estimating/)
    return { estimate: (await est.innerText()).trim(), large: (await est.getAttribute('data-large')) === 'true' }
  }

  /**
   * Send the follow-up; resolves with the inline error text if it was refused, else null once the reply
   * has been shown in place (then closes the dialog). A queued follow-up closes the dialog by itself.
   */
  async sendFollowUp(text: string): Promise<string | null> {
    await this.page.getByTestId('followup-input').fill(text)
    await this.page.getByTestId('followup-send').click()
    const dialog = this.page.getByTestId('followup-dialog')
    const error = this.page.getByTestId('followup-error')
    const done = this.page.locator('[data-testid="followup-reply"][data-done]')
    await expect(async () => {
      if ((await error.isVisible()) || (await done.isVisible())) return
      await expect(dialog).toBeHidden({ timeout: 500 })
    }).toPass({ timeout: 30_000 })
    if (await error.isVisible()) return (await error.innerText()).trim()
    if (await done.isVisible()) {
      this.lastReply = (await done.innerText()).trim()
      await this.page.getByTestId('followup-cancel').click()
      await expect(dialog).toBeHidden()
    }
    return null
  }
  /** Text of the last follow-up reply shown in the dialog. */
  lastReply = ''

  async followUp(childId: string, text: string): Promise<string | null> {
    await this.startFollowUp(childId)
    return this.sendFollowUp(text)
  }

  async tombstone(childId: string): Promise<void> {
    await this.row(childId).getByTestId('tombstone-open').click()
    await this.page.getByTestId('tombstone-confirm').click()
    await expect(this.page.getByTestId('tombstone-dialog')).toBeHidden()
  }
}
