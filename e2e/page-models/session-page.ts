import { expect, type Locator, type Page } from '@playwright/test'

export type CacheBadge =
  | 'reused'
  | 'fresh agent: first turn here'
  | 'fresh agent: settings changed'
  | 'fresh agent: changed elsewhere'
  | 'fresh agent: session changed'

/** One session: windowed transcript, lineage, metadata, children, composer with live turns. */
export class SessionPage {
  constructor(readonly page: Page) {}

  async open(profile: string, sessionId: string, messageId?: number): Promise<void> {
    const hash = `#/session/${encodeURIComponent(profile)}/${encodeURIComponent(sessionId)}${messageId != null ? `?m=${messageId}` : ''}`
    await this.page.evaluate((h) => {
      location.hash = h
    }, hash)
    await expect(this.transcript).toBeVisible()
  }

  get transcript(): Locator {
    return this.page.getByTestId('transcript')
  }
  get messages(): Locator {
    return this.page.getByTestId('message')
  }
  message(id: number): Locator {
    return this.page.locator(`[data-testid="message"][data-message-id="${id}"]`)
  }
  messagesByRole(role: string): Locator {
    return this.page.locator(`[data-testid="message"][data-role="${role}"]`)
  }
  get composer(): Locator {
    return this.page.getByTestId('composer-input')
  }
  get turnBadges(): Locator {
    return this.page.getByTestId('turn-badge')
  }
  get liveMessage(): Locator {
    return this.page.getByTestId('live-message')
  }
  get title(): Locator {
    return this.page.getByTestId('session-title')
  }

  /** Type and send with the button; resolves when the turn's badge appears. */
  async send(text: string, via: 'button' | 'keyboard' = 'button'): Promise<void> {
    // older strips may be windowed out of the DOM, so look for a turn id we have not seen rather than counting
    const strips = this.page.getByTestId('turn-strip')
    const seen = new Set(await strips.evaluateAll((els) => els.map((e) => e.getAttribute('data-turn-id'))))
    await this.composer.fill(text)
    if (via === 'keyboard') await this.composer.press(process.platform === 'darwin' ? 'Meta+Enter' : 'Control+Enter')
    else await this.page.getByTestId('composer-send').click()
    await expect
      .poll(async () =>
        (await strips.evaluateAll((els) => els.map((e) => e.getAttribute('data-turn-id')))).some((id) => !seen.has(id))
      )
      .toBe(true)
    await expect(this.turnBadges.last()).toBeVisible()
  }

  /** Wait for the last turn to end; returns its status. */
  async waitForTurnEnd(): Promise<string> {
    const strip = this.page.getByTestId('turn-strip').last()
    await expect(strip).not.toHaveAttribute('data-status', 'running')
    return (await strip.getAttribute('data-status'))!
  }

  async lastBadge(): Promise<CacheBadge> {
    return (await this.turnBadges.last().innerText()).trim() as CacheBadge
  }

  async isDemoModel(): Promise<boolean> {
    return this.page.getByTestId('turn-strip').last().getByTestId('demo-model').isVisible()
  }

  async stop(): Promise<void> {
    await this.page.getByTestId('composer-stop').click()
  }

  /** Wait until a persisted message containing `text` is in the transcript. */
  async waitForMessage(text: string | RegExp, role?: string): Promise<Locator> {
    const loc = (role ? this.messagesByRole(role) : this.messages).filter({ hasText: text }).last()
    await expect(loc).toBeVisible()
    return loc
  }

  async focusedMessageId(): Promise<number | null> {
    const el = this.page.locator('[data-testid="message"][data-focused="true"]')
    return (await el.count()) ? Number(await el.getAttribute('data-message-id')) : null
  }

  async expandToolCall(index = 0): Promise<void> {
    await this.page.getByTestId('tool-call-toggle').nth(index).click()
  }
  async loadOlder(): Promise<void> {
    await this.page.getByTestId('load-older').click()
  }

  get lineage(): Locator {
    return this.page.getByTestId('lineage')
  }
  async openParent(): Promise<void> {
    await this.page.getByTestId('lineage-parent').click()
  }

  /** Own / children / inclusive cost from the metadata panel. */
  async costs(): Promise<{ own: string; children: string | null; inclusive: string | null }> {
    const text = async (id: string) =>
      (await this.page.getByTestId(id).count()) ? (await this.page.getByTestId(id).innerText()).trim() : null
    await expect(this.page.getByTestId('session-cost-own')).toBeVisible()
    return {
      own: (await text('session-cost-own'))!,
      children: await text('session-cost-children'),
      inclusive: await text('session-cost-inclusive')
    }
  }

  async openCostBreakdown(): Promise<Locator> {
    await this.page.getByTestId('show-cost-breakdown').click()
    return this.page.getByTestId('cost-breakdown')
  }

  get children(): Locator {
    return this.page.getByTestId('session-children').getByTestId('subagent-row')
  }
  child(childId: string): Locator {
    return this.page.getByTestId('session-children').locator(`[data-testid="subagent-row"][data-child-id="${childId}"]`)
  }
}
