import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { test as base, expect } from '@playwright/test'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { startHost, type RunningHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// The home upstream Hermes's own agent loop wrote end to end (scripts/golden/agent_loop.py): what its CLI stores
// when a user runs `hermes chat -q`, read through the app.
const HOME = resolve(import.meta.dirname, '../../test/fixtures/upstream/agent-loop')
const golden = JSON.parse(readFileSync(resolve(HOME, 'golden.json'), 'utf8')) as {
  ids: Record<string, string>
  list: Array<{ id: string; source: string; parent_session_id: string | null; preview: string }>
}

const test = base.extend<{ host: RunningHost }>({
  host: async ({}, use) => {
    const host = await startHost({ template: HOME, demo: false })
    await use(host)
    await host.close()
  }
})
test.use({ bypassCSP: true }) // axe is injected as a script tag

test("a subagent's parent is named as everywhere else: by its first message when upstream left it untitled", async ({
  page,
  host
}) => {
  const child = golden.list.find((s) => s.source === 'subagent')!
  const parent = golden.list.find((s) => s.id === child.parent_session_id)!
  const transcript = new SessionPage(page)
  await new AppShell(page).open(host.url)
  await transcript.open('default', child.id)
  await expect(page.getByTestId('lineage-parent')).toHaveText(`↑ ${parent.preview}`)
  await transcript.openParent()
  await expect(transcript.title).toHaveText(parent.preview)
})

test('a failed call is marked on its folded row, as upstream marks it on its summary line', async ({ page, host }) => {
  const transcript = new SessionPage(page)
  await new AppShell(page).open(host.url)
  await transcript.open('default', golden.ids.fail!)
  const calls = page.getByTestId('tool-call')
  await expect(calls).toHaveCount(2)
  // read_file of a missing path (an `error` beside empty content), terminal exiting 3
  await expect(calls.nth(0).getByTestId('tool-failed')).toHaveText('failed')
  await expect(calls.nth(1).getByTestId('tool-failed')).toHaveText('exit 3')
  await transcript.open('default', golden.ids.tools!)
  await expect(page.getByTestId('tool-call')).toHaveCount(5)
  await expect(page.getByTestId('tool-failed')).toHaveCount(0)
})

test('every session of the home passes axe, light and dark, with its calls unfolded', async ({ page, host }) => {
  const transcript = new SessionPage(page)
  await new AppShell(page).open(host.url)
  const found: Record<string, AxeViolation[]> = {}
  for (const s of golden.list) {
    await transcript.open('default', s.id)
    await expect(transcript.messages.first()).toBeVisible()
    // each click unfolds the first folded call left, so the list shrinks as it goes
    const folded = page.locator('[data-testid="tool-call"] [aria-expanded="false"]')
    for (let n = await folded.count(); n > 0; n--) await folded.first().click()
    await expect(folded).toHaveCount(0)
    await scanThemes(page, s.id, found)
  }
  expect(found).toEqual({})
})

test("upstream's delegation report, stored as the parent's next user input, reads as a notice with its subagent", async ({
  page,
  host
}) => {
  const transcript = new SessionPage(page)
  await new AppShell(page).open(host.url)
  await transcript.open('default', golden.ids.delegate!)
  const report = page.locator('[data-testid="message"][data-kind="upstream_delegation"]')
  await expect(report).toHaveCount(1)
  // an event card: the task and its result, not upstream's header and instructions to the model
  await expect(report.getByTestId('notice-task')).toContainText('CHILD-GOAL: count to three')
  await expect(report.getByTestId('notice-outcome')).toHaveText('one two three')
  await expect(report).not.toContainText('[ASYNC DELEGATION BATCH COMPLETE')
  await expect(page.locator('[data-testid="message"][data-role="user"]:not(.notice)')).toHaveCount(1) // typed
  const card = page.getByTestId('child-card')
  await expect(card).toHaveCount(1)
  await expect(card).toContainText('CHILD-GOAL: count to three')
})
