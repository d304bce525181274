import { expect } from '@playwright/test'
import { test } from '../fixtures/tool-home-host'
import { scanThemes, smallTargets, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

// Issue #26 item 9: the states the review found failing, light and dark, in one pass over one host.
test('axe: 0 violations at any impact on chains, diff blocks, Memory with a profile and the error screens', async ({
  page,
  browser,
  host
}) => {
  const shell = new AppShell(page)
  const session = new SessionPage(page)
  const found: Record<string, AxeViolation[]> = {}
  // axe in both themes, then every control's own box: 24 × 24 px at least (smallTargets; a11y.spec says why)
  const scan = async (on: typeof page, state: string, into: typeof found) => {
    await scanThemes(on, state, into)
    const small = await smallTargets(on)
    if (small.length) into[`${state}/targets`] = small
  }
  await shell.open(host.url)

  // a compression chain read whole: the compaction marker (with its link) and both parts
  await session.open('default', 'chain-b')
  await expect(page.getByTestId('compaction-marker').first()).toBeAttached()
  await scan(page, 'chain', found)

  // a ```diff block in a reply
  await session.open('default', 'markdown-diff')
  await expect(page.locator('.markdown pre code').first()).toContainText('+    return f"Hello, {name}!"')
  await scan(page, 'diff-block', found)
  // lines wider than the page, in a fenced block and in a call's arguments: both scroll, so both take focus
  const call = page.getByTestId('tool-call').last()
  await call.getByTestId('tool-call-toggle').click()
  await expect(call.locator('.tool-args-preview')).toHaveText(/^path: notes\/été\.md · content: Heater ✓ données/)
  // arguments longer than a page carries: their start, readable, then whole on "Show all"
  const args = call.locator('.fold-body pre.code').first()
  await expect(args).toContainText('{"path":"notes/été.md","content":"Heater ✓ données')
  await expect(call.getByTestId('tool-cut')).toContainText(/Showing the start of \d+ KB/)
  await call.getByTestId('tool-show-all').click()
  await expect(call.getByTestId('tool-cut')).toHaveCount(0)
  await expect(args).toContainText('"path": "notes/été.md",\n  "content": "Heater ✓ données')
  expect((await args.textContent())!.trimEnd().endsWith('données "\n}')).toBe(true)
  await scan(page, 'long-lines', found)

  // Memory with one profile selected: its entries with Edit/Remove
  await shell.goTo('memory')
  await shell.selectProfile('default')
  await expect(page.getByTestId('memory-entry').first()).toBeVisible()
  await scan(page, 'memory-profile', found)
  await page.getByTestId('memory-entry-edit').first().click()
  await expect(page.getByTestId('memory-entry-input')).toBeVisible()
  // with a change typed: the box's note that it is not saved yet
  await page.keyboard.type(' (unsaved)')
  await expect(page.getByTestId('memory-entry-unsaved')).toBeVisible()
  await scan(page, 'memory-entry-edit', found)

  // an unknown session
  await session.page.evaluate(() => {
    location.hash = '#/session/default/no-such-session'
  })
  await expect(page.getByTestId('session-not-found')).toBeVisible()
  await scan(page, 'unknown-session', found)

  // no token: a browser that never had one
  const fresh = await browser.newPage({ bypassCSP: true })
  await fresh.goto(`${new URL(host.url).origin}/#/sessions`)
  await expect(fresh.getByTestId('token-needed')).toBeVisible()
  await scan(fresh, 'no-token', found)
  await fresh.close()

  expect(found).toEqual({})
})
