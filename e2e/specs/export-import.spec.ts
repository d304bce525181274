import { readFileSync, writeFileSync } from 'node:fs'
import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'

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
})
