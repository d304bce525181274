import type { SessionPage, SessionPruneResult } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'

test('Prune… previews exactly the CLI’s selection (sessions.prune dry run) and deletes just those', async ({
  page,
  host
}) => {
  // the selection the CLI gets for "ended, started before now, source X" (X: a source with a few ended sessions)
  const all = await api<SessionPruneResult>(host.url, 'sessions.prune', {
    profile: 'default',
    olderThanDays: 0,
    dryRun: true
  })
  const bySource = new Map<string, number>()
  for (const c of all.candidates!) bySource.set(c.source, (bySource.get(c.source) ?? 0) + 1)
  const [source] = [...bySource.entries()].sort((a, b) => a[1] - b[1])[0]!
  const cli = await api<SessionPruneResult>(host.url, 'sessions.prune', {
    profile: 'default',
    olderThanDays: 0,
    source,
    dryRun: true
  })
  const want = cli.candidates!.map((c) => c.id).sort()
  expect(want.length).toBeGreaterThan(0)

  const shell = new AppShell(page)
  await shell.open(host.url)
  await shell.selectProfile('default')
  await page.getByTestId('prune-open').click()
  const dialog = page.getByTestId('prune-dialog')
  await dialog.getByTestId('prune-days').fill('0')
  await dialog.getByTestId('prune-source').fill(source)
  await dialog.getByTestId('prune-preview').click()
  // every session that would go is listed
  await expect(dialog.getByTestId('prune-candidate')).toHaveCount(want.length)
  const shown = await dialog
    .getByTestId('prune-candidate')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')!))
  expect(shown.sort()).toEqual(want)

  await dialog.getByTestId('prune-confirm').click()
  await expect(dialog.getByTestId('prune-done')).toContainText(`Deleted ${want.length} session`)
  // what is left to prune is exactly the rest: the selection went, nothing outside it did
  const after = await api<SessionPruneResult>(host.url, 'sessions.prune', {
    profile: 'default',
    olderThanDays: 0,
    dryRun: true
  })
  const wanted = new Set(want)
  expect(after.candidates!.map((c) => c.id).sort()).toEqual(
    all
      .candidates!.map((c) => c.id)
      .filter((id) => !wanted.has(id))
      .sort()
  )
  const list = await api<SessionPage>(host.url, 'sessions.list', { profile: 'default', limit: 500 })
  expect(list.items.filter((s) => wanted.has(s.id))).toEqual([])

  // archived sessions are kept unless asked for, as `hermes sessions prune` keeps them (`--include-archived`)
  const archivedId = after.candidates![0]!.id
  await api(host.url, 'sessions.update', { profile: 'default', sessionId: archivedId, archived: true })
  const both = await api<SessionPruneResult>(host.url, 'sessions.prune', {
    profile: 'default',
    olderThanDays: 0,
    includeArchived: true,
    dryRun: true
  })
  expect(both.candidates!.map((c) => c.id)).toContain(archivedId) // with the ones the demo home archived
  // archiving takes the session's whole compression lineage with it (upstream's set_session_archived)
  const kept = await api<SessionPruneResult>(host.url, 'sessions.prune', {
    profile: 'default',
    olderThanDays: 0,
    dryRun: true
  })
  expect(kept.candidates!.map((c) => c.id)).not.toContain(archivedId)
  expect(kept.candidates!.length).toBeLessThan(after.candidates!.length)
  await dialog.getByRole('button', { name: 'Close' }).click()
  await page.getByTestId('prune-open').click()
  const again = page.getByTestId('prune-dialog')
  await again.getByTestId('prune-days').fill('0')
  await again.getByTestId('prune-preview').click()
  await expect(again.getByRole('status')).toHaveText(`${kept.candidates!.length} sessions would be deleted`)
  await again.getByTestId('prune-archived').selectOption('include')
  await again.getByTestId('prune-preview').click()
  await expect(again.getByRole('status')).toHaveText(`${both.candidates!.length} sessions would be deleted`)
})
