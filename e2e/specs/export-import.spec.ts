import { readFileSync, writeFileSync } from 'node:fs'
import type { Download } from '@playwright/test'
import type { SessionDetail, SessionPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { axeViolations } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'
import { SessionSelection } from '../page-models/session-selection'

test('export a session from the UI, import a file, see the summary', async ({ page, host }, testInfo) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  await shell.open(host.url)
  await expect(sessions.rows.first()).toBeVisible()
  const first = sessions.rows.first()
  const sessionId = (await first.getAttribute('data-session-id'))!
  const profile = (await first.getAttribute('data-profile'))!
  await sessions.openSession(sessionId)

  // export: a real download of upstream JSONL for this session
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('session-export').click()])
  expect(download.suggestedFilename()).toBe(`caduceus-${profile}-${sessionId}.jsonl`)
  const saved = testInfo.outputPath('export.jsonl')
  await download.saveAs(saved)
  const lines = readFileSync(saved, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(lines).toHaveLength(1)
  expect(lines[0].id).toBe(sessionId)
  expect(Array.isArray(lines[0].messages)).toBe(true)

  // the same session as an HTML page: one file that needs no script, axe-clean in both colour schemes
  const [html] = await Promise.all([page.waitForEvent('download'), page.getByTestId('session-export-html').click()])
  expect(html.suggestedFilename()).toBe(`caduceus-${profile}-${sessionId}.html`)
  const htmlFile = testInfo.outputPath('export.html')
  await html.saveAs(htmlFile)
  const doc = readFileSync(htmlFile, 'utf8')
  expect(doc).not.toMatch(/<script/i)

  // import: the same file again (skipped) plus a new upstream-shaped session whose parent is nowhere (detached)
  const orphan = {
    id: 'imported-orphan-1',
    source: 'telegram',
    parent_session_id: 'no-such-parent',
    started_at: 1700000000,
    title: 'Imported from elsewhere',
    messages: [{ role: 'user', content: 'hello from another machine', timestamp: 1700000001 }]
  }
  const file = testInfo.outputPath('import.jsonl')
  writeFileSync(file, readFileSync(saved, 'utf8') + JSON.stringify(orphan) + '\n')
  await page.goto(`${host.url.split('#')[0]}#/sessions`)
  await shell.selectProfile(profile)
  await page.getByTestId('import-file').setInputFiles(file)
  const summary = page.getByTestId('import-summary')
  await expect(summary).toContainText('Imported 1, skipped 1, detached 1')
  await sessions.search('another machine')
  await expect(sessions.hits.first()).toHaveAttribute('data-session-id', 'imported-orphan-1')

  // last, as it leaves the app: the HTML page on its own, folds open, axe-clean in both colour schemes (axe runs as
  // an injected script, which the page's own policy forbids, so the scanned copy leaves the policy out)
  await page.goto('about:blank')
  await page.setContent(doc.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, ''))
  await expect(page.locator('h1')).toHaveCount(1)
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)))
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    expect({ colorScheme, found: await axeViolations(page) }).toEqual({ colorScheme, found: [] })
  }
  await page.emulateMedia({ colorScheme: null })
})

test('a compressed conversation exports whole, from its page and from the list, as both show it', async ({
  page,
  host
}, testInfo) => {
  const shell = new AppShell(page)
  const sessions = new SessionsPage(page)
  const sel = new SessionSelection(page, sessions)
  // a chain among the rows the list shows first
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'all', limit: 20 })
  const tip = list.items.find((s) => s.chainLength > 1)!
  const detail = await api<SessionDetail>(host.url, 'sessions.get', { profile: tip.profile, sessionId: tip.id })
  const chain = detail.lineage.chain.map((r) => r.id)
  expect(chain.at(-1)).toBe(tip.id)
  const records = async (dl: Download, name: string) => {
    const file = testInfo.outputPath(name)
    await dl.saveAs(file)
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; lineage_session_ids?: string[] })
  }

  await shell.open(host.url)
  await shell.selectProfile(tip.profile)
  await sessions.openSession(tip.id)
  const [fromPage] = await Promise.all([page.waitForEvent('download'), page.getByTestId('session-export').click()])
  const [whole] = await records(fromPage, 'page.jsonl')
  expect(whole!.lineage_session_ids).toEqual(chain)

  await shell.goTo('sessions')
  await sel.box(`${tip.profile}/${tip.id}`).click()
  await expect(page.getByTestId('list-export')).toHaveText('Export selected (1)')
  const [fromList] = await Promise.all([page.waitForEvent('download'), page.getByTestId('bulk-export').click()])
  expect((await records(fromList, 'selected.jsonl')).map((r) => r.lineage_session_ids)).toEqual([chain])
})
