// Bulk selection on the Sessions page, through the page: click + shift-click, archive/unarchive across
// profiles, delete with one confirm and one undo window, export of exactly the selection or the rows shown,
// Space/Escape, selection surviving live re-sorts, axe with a selection active.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api, appendExternally } from '../fixtures/external'
import { scanThemes, THEMES, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'
import { SessionSelection, splitKey as split } from '../page-models/session-selection'

const exists = (url: string, key: string) =>
  api(url, 'sessions.get', split(key)).then(
    () => true,
    () => false
  )

test('click + shift-click selects 3 rows (named by their titles); archive removes them, unarchive brings them back', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const sel = new SessionSelection(page, sessions)
  await shell.open(host.url)
  await expect(sessions.rows.nth(6)).toBeVisible()
  // each checkbox's accessible name is the session's name
  const title = await sessions.rows.nth(0).locator('.row-title').innerText()
  await expect(page.getByRole('checkbox', { name: title.replace(/^★\s*/, '').trim(), exact: true })).toHaveCount(1)

  const keys = await sel.selectRange(1, 3)
  await expect(sel.box(await sel.keyOf(0))).not.toBeChecked()
  await expect(sel.box(await sel.keyOf(4))).not.toBeChecked()

  // a live update re-sorts the list (another process writes to the 6th row): the selection follows the rows
  const moved = split(await sel.keyOf(5))
  const db =
    moved.profile === 'default' ? join(host.root, 'state.db') : join(host.root, 'profiles', moved.profile, 'state.db')
  appendExternally(db, moved.sessionId, 'a late reply that moves this session to the top')
  await expect(sessions.rows.first()).toHaveAttribute('data-session-id', moved.sessionId)
  await expect(page.getByTestId('selection-count')).toHaveText('3 selected')
  for (const k of keys) await expect(sel.box(k)).toBeChecked()

  await page.getByTestId('bulk-archive').click()
  await expect(page.getByTestId('toast-info').last()).toHaveText(/Archived 3 sessions/)
  for (const k of keys) await expect(sel.shell(k)).toHaveCount(0)
  await expect(page.getByTestId('selection-bar')).toHaveCount(0)
  // each went to its own profile
  for (const k of keys)
    expect((await api<{ summary: { archived: boolean } }>(host.url, 'sessions.get', split(k))).summary.archived).toBe(
      true
    )

  await sessions.filterArchived('only')
  for (const k of keys) await sel.box(k).click()
  await expect(page.getByTestId('selection-count')).toHaveText('3 selected')
  await page.getByTestId('bulk-unarchive').click()
  await expect(page.getByTestId('toast-info').last()).toHaveText(/Unarchived 3 sessions/)
  for (const k of keys) await expect(sel.shell(k)).toHaveCount(0)
  await sessions.filterArchived('exclude')
  for (const k of keys) await expect(sel.shell(k)).toBeVisible()
})

test('bulk delete: one confirm naming the count, undo restores all; without undo they are gone after reload', async ({
  page,
  host
}) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const sel = new SessionSelection(page, sessions)
  // the page's clock, so the undo window below runs out without 8 real seconds of waiting
  await page.clock.install()
  await shell.open(host.url)
  await expect(sessions.rows.nth(5)).toBeVisible()

  let keys = await sel.selectRange(0, 2)
  await page.getByTestId('bulk-delete').click()
  await expect(page.getByTestId('bulk-delete-dialog')).toContainText('Delete 3 sessions?')
  await page.getByTestId('bulk-delete-confirm').click()
  await expect(page.getByTestId('undo-delete-bar')).toContainText('Deleted 3 sessions')
  for (const k of keys) await expect(sel.shell(k)).toHaveCount(0)
  await page.getByTestId('undo-delete').click()
  for (const k of keys) await expect(sel.shell(k)).toBeVisible()
  for (const k of keys) expect(await exists(host.url, k)).toBe(true)

  keys = await sel.selectRange(1, 3)
  await page.getByTestId('bulk-delete').click()
  await shell.undoWindowPasses(page.getByTestId('bulk-delete-dialog'), page.getByTestId('bulk-delete-confirm'))
  // the undo window runs out: the whole batch is deleted, each in its own profile
  await expect(page.getByTestId('undo-delete-bar')).toBeHidden({ timeout: 20_000 })
  await expect(page.getByTestId('toast-info').last()).toHaveText(/Deleted 3 sessions/)
  await page.reload()
  await expect(sessions.rows.first()).toBeVisible()
  for (const k of keys) await expect(sel.shell(k)).toHaveCount(0)
  for (const k of keys) expect(await exists(host.url, k)).toBe(false)
})

test('export selected downloads exactly those sessions; Export with no selection downloads exactly the rows shown', async ({
  page,
  host
}, testInfo) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const sel = new SessionSelection(page, sessions)
  await shell.open(host.url)
  await expect(sessions.rows.nth(4)).toBeVisible()
  const keys = await sel.selectRange(0, 2)
  await expect(page.getByTestId('list-export')).toHaveText('Export selected (3)')
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('bulk-export').click()])
  const saved = testInfo.outputPath('selected.jsonl')
  await dl.saveAs(saved)
  const ids = readFileSync(saved, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).id as string)
  expect(ids.sort()).toEqual(keys.map((k) => split(k).sessionId).sort())
  // the same selection as one HTML page, as a single session downloads
  const [page1] = await Promise.all([page.waitForEvent('download'), page.getByTestId('bulk-export-html').click()])
  expect(page1.suggestedFilename()).toMatch(/-selected-3\.html$/)
  const html = readFileSync(await page1.path(), 'utf8')
  expect(html.match(/<!doctype html>/gi)).toHaveLength(1)
  for (const k of keys) expect(html).toContain(split(k).sessionId)

  // no selection: the toolbar exports what the filters show (a source filter here), and says so
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('selection-bar')).toHaveCount(0)
  await shell.selectProfile('work')
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'work', limit: 500 })
  const source = list.items[0]!.source
  await sessions.filterSource(source)
  const shown = list.items.filter((s) => s.source === source).map((s) => s.id)
  await expect(sessions.rows).toHaveCount(shown.length)
  await expect(page.getByTestId('list-export')).toHaveText(`Export shown (${shown.length})`)
  const [dl2] = await Promise.all([page.waitForEvent('download'), page.getByTestId('list-export').click()])
  const saved2 = testInfo.outputPath('shown.jsonl')
  await dl2.saveAs(saved2)
  const ids2 = readFileSync(saved2, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).id as string)
  expect(ids2.sort()).toEqual(shown.sort())
  expect(dl2.suggestedFilename()).toBe(`caduceus-work-shown-${shown.length}.jsonl`)
  // the same rows as one HTML page, from the menu beside the button (keyboard: the menu opens on Enter)
  await page.locator('.export-more > summary').focus()
  await page.keyboard.press('Enter')
  const [dl3] = await Promise.all([page.waitForEvent('download'), page.getByTestId('list-export-html').click()])
  expect(dl3.suggestedFilename()).toMatch(/\.html$/)
  const page3 = readFileSync(await dl3.path(), 'utf8')
  for (const id of shown) expect(page3).toContain(id)
  await expect(page.getByTestId('list-export-html')).toBeHidden() // the menu closes once a format is chosen
})

test('Space toggles the focused row, Escape clears, a profile switch clears the selection', async ({ page, host }) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const sel = new SessionSelection(page, sessions)
  await shell.open(host.url)
  await expect(sessions.rows.nth(2)).toBeVisible()
  const k0 = await sel.keyOf(0)
  const k1 = await sel.keyOf(1)
  await page.locator('body').press('j') // cursor on the first row
  await expect(sessions.rows.first()).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press(' ')
  await expect(sel.box(k0)).toBeChecked()
  await page.keyboard.press('j')
  await page.keyboard.press(' ')
  await expect(sel.box(k1)).toBeChecked()
  await expect(page.getByTestId('selection-count')).toHaveText('2 selected')
  await page.keyboard.press(' ')
  await expect(sel.box(k1)).not.toBeChecked()
  await page.keyboard.press('Escape')
  await expect(sel.box(k0)).not.toBeChecked()
  await expect(page.getByTestId('selection-bar')).toHaveCount(0)

  await page.getByTestId('select-all').check()
  await expect(page.getByTestId('selection-count')).toHaveText(/^\d+ selected$/)
  await shell.selectProfile('work')
  await expect(page.getByTestId('selection-bar')).toHaveCount(0)
  await expect(page.getByTestId('row-select').first()).not.toBeChecked()
})

test.describe('axe with a selection active', () => {
  // axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
  test.use({ bypassCSP: true })
  // Both themes at each stop (scanThemes); the stored choice is what a load applies.
  test('0 axe violations at any impact on Sessions with 3 rows selected and the delete dialog, light and dark', async ({
    page,
    host
  }) => {
    const shell = new AppShell(page)
    const sessions = new SessionsPage(page)
    const sel = new SessionSelection(page, sessions)
    await shell.open(host.url)
    for (const theme of THEMES) {
      await page.evaluate((t) => localStorage.setItem('caduceus.theme', t), theme)
      await page.reload()
      await expect(shell.connection).toHaveAttribute('data-state', 'connected')
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    }
    const found: Record<string, AxeViolation[]> = {}
    await expect(sessions.rows.nth(4)).toBeVisible()
    await sel.selectRange(0, 2)
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
    await scanThemes(page, 'selection', found)
    await page.getByTestId('bulk-delete').click()
    await expect(page.getByTestId('bulk-delete-dialog')).toBeVisible()
    await scanThemes(page, 'delete-dialog', found)
    expect(found).toEqual({})
  })
})

test('an untitled session is named by its first message in search results, not by its id', async ({ page, host }) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'all', limit: 500 })
  const untitled = list.items.find((s) => !s.title && s.preview && /\b[a-z]{6,}\b/i.test(s.preview))!
  expect(untitled).toBeTruthy()
  const word = untitled.preview!.match(/\b[a-z]{6,}\b/i)![0]
  await shell.open(host.url)
  await sessions.search(word)
  const hit = page.locator(`[data-testid="search-hit"][data-session-id="${untitled.id}"]`).first()
  await expect(hit).toBeVisible()
  const name = hit.locator('.row-title')
  // the first message (cut at a word when long) stands for the title
  await expect(name).toContainText(untitled.preview!.replace(/\s+/g, ' ').trim().slice(0, 20))
  await expect(name).not.toContainText(untitled.id)
  await expect(page.locator(`[data-testid="search-group"][data-session-id="${untitled.id}"]`)).not.toContainText(
    untitled.id
  )
})
