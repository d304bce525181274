// A profile whose state.db cannot be read is named on the Costs and Subagents pages with the host's reason: totals
// served without it are marked incomplete (never "complete"), and a view of that profile alone is an error, not an
// empty page. The Sessions list and search name it too, and a profile read with a notice (a newer schema). The rail's "!" is profile-problems.spec.ts; the requests are test/home-robustness.test.ts.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { scanThemes, type AxeViolation } from '../fixtures/axe'
import { startHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'
import { makeDeleteJournalHome } from '../../test/fixtures/journal-lock'

/** A copy of the demo home plus a profile `corrupt` whose state.db is 8 KiB of 'A': not a database. */
function demoWithCorruptProfile(): string {
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-unreadable-'))
  cpSync(process.env.CADUCEUS_E2E_DEMO_TEMPLATE!, home, { recursive: true })
  mkdirSync(join(home, 'profiles', 'corrupt'), { recursive: true })
  writeFileSync(join(home, 'profiles', 'corrupt', 'state.db'), Buffer.alloc(8192, 0x41))
  return home
}

// axe is injected as a script tag; the app's CSP (script-src 'self') would refuse it
test.use({ bypassCSP: true })

test('Costs and Subagents name an unreadable profile and why; alone it is an error state; axe clean', async ({
  page
}) => {
  const home = demoWithCorruptProfile()
  const host = await startHost({ home })
  const found: Record<string, AxeViolation[]> = {}
  try {
    const shell = new AppShell(page)
    await shell.open(host.url, '#/costs')
    await shell.selectProfile('all')
    await expect(page.getByTestId('costs-inclusive-total')).toHaveText(/\$\d/)

    // all profiles: the others' totals, marked incomplete, and the unreadable one named with the reason
    const notice = page.getByTestId('unreadable-profiles')
    await expect(notice).toBeVisible()
    await expect(notice.locator('[data-profile="corrupt"]')).toHaveText(/^corrupt: .*not a database/)
    await expect(page.getByTestId('costs-status')).toHaveText('incomplete · 1 profile not read')
    // no figure on the page calls itself complete ("incomplete" aside)
    await expect(page.locator('.costs-page')).not.toContainText(/(^|[^n])complete/)
    await scanThemes(page, 'costs-all', found)

    await shell.goTo('subagents')
    await expect(page.getByTestId('unreadable-profiles').locator('[data-profile="corrupt"]')).toHaveText(
      /^corrupt: .*not a database/
    )
    await scanThemes(page, 'subagents-all', found)

    // the unreadable profile alone: an error naming it, not "No subagents." / "No profiles in scope"
    await shell.selectProfile('corrupt')
    const alone = page.getByTestId('profile-unreadable')
    await expect(alone).toHaveText(/corrupt: .*not a database/)
    await expect(alone).toHaveAttribute('role', 'alert')
    await expect(page.getByTestId('subagents-empty')).toHaveCount(0)
    await scanThemes(page, 'subagents-corrupt', found)

    await shell.goTo('costs')
    await expect(page.getByTestId('profile-unreadable')).toHaveText(/corrupt: .*not a database/)
    await expect(page.getByText('No profiles in scope')).toHaveCount(0)
    await expect(page.getByTestId('costs-status')).toHaveCount(0)
    await scanThemes(page, 'costs-corrupt', found)

    expect(found).toEqual({})
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})

test('the Sessions list and search name an unreadable profile and a newer-schema one, and why; axe clean', async ({
  page
}) => {
  const home = demoWithCorruptProfile()
  // and a profile `future` whose state.db an upstream newer than Caduceus wrote: read, with a notice
  cpSync(join(home, 'profiles', 'research'), join(home, 'profiles', 'future'), { recursive: true })
  const db = new Database(join(home, 'profiles', 'future', 'state.db'))
  db.exec('UPDATE schema_version SET version = 99')
  db.close()
  const host = await startHost({ home })
  const found: Record<string, AxeViolation[]> = {}
  try {
    const shell = new AppShell(page)
    await shell.open(host.url, '#/sessions')
    await shell.selectProfile('all')
    const sessions = new SessionsPage(page)
    await expect(sessions.rows.first()).toBeVisible()
    // the other profiles' rows, and the one that could not be read named above them with the host's reason
    const notice = page.getByTestId('unreadable-profiles')
    await expect(notice).toHaveText(/^This list leaves out a profile/)
    await expect(notice.locator('[data-profile="corrupt"]')).toHaveText(/^corrupt: .*not a database/)
    // the profile read with a notice: named above the list too, as a status, not only by the rail's "!"
    const newer = page.getByRole('status', { name: 'Profile notices' })
    await expect(newer.locator('[data-profile="future"]')).toHaveText(/^future: state\.db has schema version 99/)
    await scanThemes(page, 'sessions-all', found)

    await sessions.search('deploy')
    await expect(page.getByTestId('unreadable-profiles')).toHaveText(/^These results leave out a profile/)
    await expect(page.getByTestId('unreadable-profiles').locator('[data-profile="corrupt"]')).toHaveText(
      /^corrupt: .*not a database/
    )
    await expect(newer.locator('[data-profile="future"]')).toHaveText(/schema version 99/)
    await scanThemes(page, 'search-all', found)

    // a session of the unreadable profile (a link kept from before): the reason, and no "No messages yet." under it
    await shell.open(host.url, '#/session/corrupt/20251204_101010_gone')
    await expect(page.getByRole('alert').filter({ hasText: 'not a database' }).first()).toBeVisible()
    await expect(page.getByTestId('transcript')).toHaveText('The messages could not be read.')
    await scanThemes(page, 'session-corrupt', found)
    expect(found).toEqual({})
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})

/** The golden v21 home in a rollback journal: there another program's exclusive lock blocks readers too. */
const journalHome = () => makeDeleteJournalHome(mkdtempSync(join(tmpdir(), 'cad-e2e-locked-')))

test('a profile another program holds locked: the page says so while it waits, then loads by itself; so does a view of every profile', async ({
  page
}) => {
  const home = journalHome()
  const host = await startHost({ home, demo: false })
  // the system sqlite3 (upstream's SQLite) holding BEGIN EXCLUSIVE until it is told to commit
  const holder = spawn('sqlite3', [join(home, 'state.db')], { stdio: ['pipe', 'pipe', 'inherit'] })
  try {
    const shell = new AppShell(page)
    await shell.open(host.url, '#/sessions')
    await expect(page.getByTestId('session-row').first()).toBeVisible()
    const locked = new Promise<void>((ok) => holder.stdout.on('data', (d: Buffer) => d.includes('locked') && ok()))
    holder.stdin.write("BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
    await locked

    // opened from the app (no reload): its shell and the list were read before the lock
    await page.evaluate(() => void (location.hash = '#/session/default/20260101_090000_aa01'))
    // said at once, not after the host's 30 s retry
    const banner = page.getByTestId('locked-banner')
    await expect(banner).toContainText(
      'The session database of profile default (state.db) is locked by another program'
    )
    await expect(banner).toContainText('loads by itself')
    await expect(page.getByTestId('transcript-loading')).toBeVisible()

    holder.stdin.write('COMMIT;\n')
    await expect(page.getByTestId('transcript')).toContainText('My heater makes a clicking noise')
    await expect(banner).toBeHidden()

    // A view of every profile read while it is locked: served without it, naming it once; no read of it waits, and
    // still the view reads it again by itself when the lock goes.
    const again = new Promise<void>((ok) => holder.stdout.on('data', (d: Buffer) => d.includes('again') && ok()))
    holder.stdin.write("BEGIN EXCLUSIVE;\nSELECT 'again';\n")
    await again
    await shell.open(host.url, '#/sessions') // a new page: its every read meets the lock
    await shell.selectProfile('all')
    const rows = page.getByTestId('session-row')
    await expect(rows.filter({ hasText: 'Quarterly report outline' })).toBeVisible()
    const leftOut = page.getByTestId('unreadable-profiles')
    await expect(leftOut.locator('[data-profile]')).toHaveCount(1)
    await expect(leftOut.locator('[data-profile="default"]')).toHaveText(/^default: .*locked by another program/)
    await expect(rows.filter({ hasText: 'Heater repair plan' })).toHaveCount(0)
    await expect(page.getByTestId('profile-problem-default')).toContainText('locked by another program') // the rail

    holder.stdin.write('COMMIT;\n')
    await expect(rows.filter({ hasText: 'Heater repair plan' })).toBeVisible()
    await expect(leftOut).toBeHidden()
    await expect(page.getByTestId('profile-problem-default')).toBeHidden()
    await expect(banner).toBeHidden()
  } finally {
    holder.stdin.end()
    holder.kill()
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
