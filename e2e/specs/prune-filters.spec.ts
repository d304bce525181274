import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { SessionPruneResult } from '@shared/contract'
import { test as base, expect, startHost, type RunningHost } from '../fixtures/host'
import { api } from '../fixtures/external'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { AppShell } from '../page-models/app-shell'
import { PruneDialog } from '../page-models/prune-dialog'

const DAY = 86400

/**
 * The demo home with models and ages to choose between: cli and tui sessions ran on a Claude model, cron and telegram
 * ones on a GPT model (the rest keep the demo's), and the desktop sessions started 200 days ago — the only ones a
 * bare prune's 90-day cutoff selects.
 */
const test = base.extend<{ host: RunningHost }>({
  host: async ({}, use) => {
    const home = mkdtempSync(join(tmpdir(), 'cad-e2e-prune-'))
    cpSync(process.env.CADUCEUS_E2E_DEMO_TEMPLATE!, home, { recursive: true })
    const db = new Database(join(home, 'state.db'))
    db.prepare("UPDATE sessions SET model = 'anthropic/claude-sonnet-4' WHERE source IN ('cli', 'tui')").run()
    db.prepare("UPDATE sessions SET model = 'openai/gpt-4o' WHERE source IN ('cron', 'telegram')").run()
    db.prepare(
      `UPDATE sessions SET started_at = started_at - ${200 * DAY},
        ended_at = CASE WHEN ended_at IS NULL THEN NULL ELSE ended_at - ${200 * DAY} END WHERE source = 'desktop'`
    ).run()
    db.close()
    const host = await startHost({ home })
    await use(host)
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

const rows = (host: RunningHost, sql: string) => {
  const db = new Database(join(host.root, 'state.db'), { readonly: true })
  try {
    return (db.prepare(sql).pluck().all() as string[]).sort()
  } finally {
    db.close()
  }
}
const dryRun = async (host: RunningHost, filter: Record<string, unknown>) =>
  (await api<SessionPruneResult>(host.url, 'sessions.prune', { profile: 'default', dryRun: true, ...filter }))
    .candidates!.map((c) => c.id)
    .sort()

test('Prune from the keyboard: an empty age is the bare prune, a model filter previews and deletes exactly its sessions', async ({
  page,
  host
}) => {
  const ended = rows(host, 'SELECT id FROM sessions WHERE ended_at IS NOT NULL AND archived = 0')
  const bare = rows(
    host,
    `SELECT id FROM sessions WHERE ended_at IS NOT NULL AND archived = 0 AND started_at < unixepoch() - ${90 * DAY}`
  )
  const claude = rows(
    host,
    "SELECT id FROM sessions WHERE ended_at IS NOT NULL AND archived = 0 AND LOWER(model) LIKE '%claude%'"
  )
  // the CLI's selections (`prune`, `prune --model claude`), and the cases this test tells apart
  expect(await dryRun(host, {})).toEqual(bare)
  expect(await dryRun(host, { olderThanDays: null, modelLike: 'claude' })).toEqual(claude)
  expect(bare.length).toBeGreaterThan(0)
  expect(bare.length).toBeLessThan(ended.length)
  expect(claude.length).toBeGreaterThan(50)
  expect(claude.length).toBeLessThan(ended.length)
  const before = rows(host, 'SELECT id FROM sessions')

  const shell = new AppShell(page)
  const prune = new PruneDialog(page)
  await shell.open(host.url)
  await shell.selectProfile('default')
  await prune.openByKeyboard()

  // an empty age with no other filter is upstream's bare prune (90 days), not "every ended session"
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.press('Backspace')
  await expect(prune.root).toContainText('Empty with no other filter: 90 days')
  await page.keyboard.press('Enter')
  await expect(prune.status).toHaveText(`${bare.length} sessions would be deleted`)
  expect(await prune.shownIds()).toEqual(bare)

  // a value the CLI would refuse is refused on its field, which takes focus
  await page.keyboard.type('soon')
  await page.keyboard.press('Enter')
  await expect(prune.error('days')).toContainText('number of days')
  await expect(prune.field('days')).toBeFocused()
  await expect(prune.field('days')).toHaveAttribute('aria-invalid', 'true')
  await expect(prune.root.getByTestId('prune-candidates')).toHaveCount(0)
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.press('Backspace')

  // Tab: source, archived choice, "More filters" (Space opens it), then the model field
  for (let i = 0; i < 3; i++) await page.keyboard.press('Tab')
  await expect(prune.root.getByTestId('prune-more')).toBeFocused()
  await page.keyboard.press('Space')
  await expect(prune.root.getByTestId('prune-more')).toHaveAttribute('aria-expanded', 'true')
  await page.keyboard.press('Tab')
  await expect(prune.field('model')).toBeFocused()
  await page.keyboard.type('Claude')
  await expect(prune.root).toContainText('Empty: any age, since another filter is set')
  await page.keyboard.press('Enter')
  await expect(prune.status).toHaveText(`${claude.length} sessions would be deleted`)
  // every session that would go is listed, not the first few
  expect(await prune.shownIds()).toEqual(claude)
  await expect(prune.candidates.first()).toContainText('anthropic/claude-sonnet-4')

  const found: Record<string, AxeViolation[]> = {}
  await scanThemes(page, 'prune-preview', found, '[data-testid="prune-dialog"]')
  await prune.field('max-messages').fill('-1')
  await prune.field('model').press('Enter')
  await expect(prune.error('max-messages')).toBeVisible()
  await scanThemes(page, 'prune-field-error', found, '[data-testid="prune-dialog"]')
  expect(found).toEqual({})
  await prune.field('max-messages').fill('')
  await page.keyboard.press('Enter')
  await expect(prune.status).toHaveText(`${claude.length} sessions would be deleted`)

  // between preview and confirm: a running Claude session ends (upstream's gateway, writing the file itself), so it
  // matches now without having been shown; a previewed one is archived, so it no longer matches
  const [running] = rows(
    host,
    "SELECT id FROM sessions WHERE ended_at IS NULL AND archived = 0 AND LOWER(model) LIKE '%claude%'"
  )
  expect(running).toBeTruthy()
  const db = new Database(join(host.root, 'state.db'))
  db.prepare("UPDATE sessions SET ended_at = unixepoch(), end_reason = 'user_exit' WHERE id = ?").run(running)
  db.close()
  const archived = claude[0]!
  await api(host.url, 'sessions.update', { profile: 'default', sessionId: archived, archived: true })

  // archiving takes the session's compression lineage with it (upstream's rule): what still matches is read back
  const unarchived = new Set(rows(host, 'SELECT id FROM sessions WHERE archived = 0'))
  const gone = new Set(claude.filter((id) => unarchived.has(id)))
  const kept = claude.length - gone.size
  expect(kept).toBeGreaterThan(0)

  // Shift+Tab from the first field wraps to the last control: Delete, confirmed with Enter
  await prune.field('days').focus()
  await page.keyboard.press('Shift+Tab')
  await expect(prune.root.getByTestId('prune-confirm')).toBeFocused()
  await expect(prune.root.getByTestId('prune-confirm')).toHaveText(`Delete ${claude.length} sessions`)
  await page.keyboard.press('Enter')
  await expect(prune.done).toContainText(`Deleted ${gone.size} sessions`)
  await expect(prune.done).toContainText(`${kept} of those previewed no longer matched and were kept`)

  // the database holds everything but the previewed sessions that still matched: not the one never shown
  expect(gone.has(running!)).toBe(false)
  expect(rows(host, 'SELECT id FROM sessions')).toEqual(before.filter((id) => !gone.has(id)))
  expect(rows(host, 'SELECT DISTINCT session_id FROM messages').filter((id) => gone.has(id))).toEqual([])
})
