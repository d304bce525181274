import { test, expect } from '../fixtures/host'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SubagentsPage } from '../page-models/subagents-page'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

// A disabled action said why only in a `title`: a mouse hover shows it, a keyboard never reaches a disabled button
// and a screen reader may not read it. The reason is text on the page now, tied to each button.
test('a disabled Follow up / Tombstone says why to keyboard and screen-reader users, at 900 px too', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const sub = new SubagentsPage(page)
  await shell.open(host.url)
  await page.setViewportSize({ width: 900, height: 860 })
  await sub.open()
  const failed = page.locator('[data-testid="subagent-row"][data-state="failed"]').first()
  await expect(failed).toBeVisible()
  const follow = failed.getByTestId('followup-open')
  const tomb = failed.getByTestId('tombstone-open')
  await expect(follow).toBeDisabled()
  await expect(tomb).toBeDisabled()
  // each button is described by its own line of visible text, not by a tooltip
  await expect(follow).not.toHaveAttribute('title', /.*/)
  await expect(follow).toHaveAccessibleDescription(/failed: no agent is kept to message/i)
  await expect(tomb).toHaveAccessibleDescription(/only a retained child can be tombstoned; this one is failed/i)

  // the keyboard reaches "Why?" (the disabled buttons take no focus) and opens the reasons under the row
  const why = failed.getByTestId('subagent-why-toggle')
  await expect(why).toHaveAttribute('aria-expanded', 'false')
  await why.focus()
  await page.keyboard.press('Enter')
  await expect(why).toHaveAttribute('aria-expanded', 'true')
  const reasons = page.getByTestId('subagent-why-row').filter({ visible: true })
  await expect(reasons).toHaveCount(1)
  await expect(reasons).toContainText('Follow up: It failed: no agent is kept to message.')
  await expect(reasons).toContainText('Tombstone: Only a retained child can be tombstoned; this one is failed.')
  // readable at the window's narrowest: the reasons span the table, and nothing scrolls sideways
  expect((await reasons.boundingBox())!.width).toBeGreaterThan(500)
  const wrap = page.locator('.subagents-page .table-wrap')
  expect(await wrap.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1)

  // a session-only entry (a synchronous run): both actions share one reason, said once under both names
  const sync = page.locator('[data-testid="subagent-row"]').filter({ has: page.getByTestId('subagent-session-only') })
  await expect(sync.first().getByTestId('followup-open')).toHaveAccessibleDescription(/synchronous delegate run/)
  await expect(sync.first().getByTestId('tombstone-open')).toHaveAccessibleDescription(/synchronous delegate run/)

  // the spawn switch: what it does is on the page, and is the button's description
  await expect(page.getByTestId('spawn-pause')).toHaveAccessibleDescription(/cannot start new subagents|stops/)
  await expect(page.getByTestId('spawn-pause-note')).toBeVisible()
  await page.getByTestId('spawn-pause').click()
  await expect(page.getByTestId('spawn-pause-note')).toHaveText(/^Paused: .*follow-ups to existing ones still run/)

  // scanned with the pointer resting on "Why?": the link keeps its contrast on a hovered row
  await why.hover()
  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'subagents-why', found)
  expect(found).toEqual({})
})
