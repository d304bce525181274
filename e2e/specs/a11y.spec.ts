import type { SessionPage as Page } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, smallTargets, THEMES, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

const PAGES = ['sessions', 'session', 'subagents', 'costs', 'memory', 'gateway', 'cron', 'settings'] as const

// One pass over the pages, both themes scanned at each stop (scanThemes): the theme changes colours, not the DOM.
// Every axe finding fails, at any impact (minor and moderate too: one h1, no skipped heading level, named header
// cells, one banner landmark, WCAG 2.2's 24 px targets), on each page and on the forms and dialogs opened on the way.
// Each stop also measures every control's own box (smallTargets): 24 × 24 px at least, not by spacing alone; a few
// states (a selected row's bar, the Costs day chip) are measured without another axe run. (a11y-states.spec measures
// Memory's entries, which need one profile.)
test('axe: 0 violations at any impact on every page, light and dark', async ({ page, host }) => {
  test.setTimeout(120_000)
  const shell = new AppShell(page)
  const s = (await api<Page>(host.url, 'sessions.list', { profile: 'default', limit: 5 })).items[0]!
  // a job, so the Cron page shows its table (with the actions column) rather than its empty state
  await api(host.url, 'cron.create', {
    profile: 'default',
    schedule: 'every 2h',
    prompt: 'Check the queue',
    name: 'Queue'
  })
  await shell.open(host.url)
  // the stored theme choice is what a load applies
  for (const theme of THEMES) {
    await page.evaluate((t) => localStorage.setItem('caduceus.theme', t), theme)
    await page.reload()
    await expect(shell.connection).toHaveAttribute('data-state', 'connected')
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
  }
  const found: Record<string, AxeViolation[]> = {}
  // the controls' boxes alone (one pass in the page, no axe run): where a state adds controls but no new markup for axe
  const targets = async (state: string) => {
    const small = await smallTargets(page)
    if (small.length) found[`${state}/targets`] = small
  }
  const scan = async (state: string) => {
    await scanThemes(page, state, found)
    await targets(state)
  }
  for (const p of PAGES) {
    if (p === 'session') {
      await page.evaluate((h) => {
        location.hash = h
      }, `#/session/default/${s.id}`)
      await expect(page.getByTestId('message').first()).toBeVisible()
    } else if (p === 'cron') {
      await page.evaluate(() => {
        location.hash = '#/cron'
      })
      await expect(page.getByTestId('cron-job')).toHaveCount(1)
    } else {
      await shell.goTo(p)
    }
    // let the page's data land (rows, charts) before scanning
    await page.waitForLoadState('networkidle').catch(() => {})
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
    await scan(p)
    if (p === 'sessions') {
      // the overlays and the search view are part of the page too
      await page.keyboard.press('Control+k')
      await page.getByTestId('palette-input').fill('co')
      await scan('palette')
      await page.keyboard.press('Escape')
      await page.locator('body').press('?')
      await scan('shortcuts')
      await page.keyboard.press('Escape')
      await page.locator('[data-search-target]').fill('rollback')
      await expect(page.getByTestId('search-hit').first()).toBeVisible()
      await scan('search')
      await page.locator('[data-search-target]').fill('')
      // a selected row brings the selection bar's actions
      await page.getByTestId('row-select').first().check()
      await expect(page.getByTestId('bulk-delete')).toBeVisible()
      await targets('selection')
      await page.getByTestId('row-select').first().uncheck()
    }
    if (p === 'session') {
      // renaming swaps the visible title for a box: the page keeps its h1
      await page.getByTestId('session-rename').click()
      await expect(page.getByTestId('session-title-input')).toBeFocused()
      await scan('session-rename')
      await page.getByTestId('session-title-input').press('Escape')
      await page.getByTestId('session-delete').click()
      await expect(page.getByTestId('delete-dialog')).toBeVisible()
      await scan('session-delete-dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('delete-dialog')).toHaveCount(0)
    }
    if (p === 'costs') {
      // a day picked: the filter chip with its clear button
      await page.evaluate(
        (day) => {
          location.hash = `#/costs?day=${day}`
        },
        new Date().toISOString().slice(0, 10)
      )
      await expect(page.getByTestId('costs-day-clear')).toBeVisible()
      await targets('costs-day')
    }
    if (p === 'cron') {
      await page.getByTestId('cron-edit').click()
      await expect(page.getByTestId('cron-form')).toBeVisible()
      await scan('cron-form')
      await page.getByTestId('cron-remove').click()
      await expect(page.getByTestId('cron-remove-dialog')).toBeVisible()
      await scan('cron-remove-dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('cron-remove-dialog')).toHaveCount(0)
    }
  }
  expect(found).toEqual({})
})

// The live markers blink (a running subagent's dot, a reconnecting connection dot, the streaming caret); with the
// system's "reduce motion" they hold still. Markers are placed in the running app so its own stylesheet decides.
test('the blinking live markers hold still when the system asks for reduced motion', async ({ page, host }) => {
  const shell = new AppShell(page)
  await shell.open(host.url)
  const animations = () =>
    page.evaluate(() =>
      ['pulse', 'caret', 'conn-dot'].map((cls) => {
        // the connection dot blinks inside a reconnecting connection indicator
        const box = document.createElement('span')
        box.className = 'conn-reconnecting'
        const el = document.createElement('span')
        el.className = cls
        box.append(el)
        document.body.append(box)
        const name = getComputedStyle(el).animationName
        box.remove()
        return name
      })
    )
  await page.emulateMedia({ reducedMotion: 'no-preference' })
  expect(await animations()).toEqual(['blink', 'blink', 'blink'])
  await page.emulateMedia({ reducedMotion: 'reduce' })
  expect(await animations()).toEqual(['none', 'none', 'none'])
})
