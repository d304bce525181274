// A profile whose state.db cannot be read is named in the rail with the reason, never shown as an empty profile;
// the others are served as usual (test/home-robustness.test.ts covers the requests and the CLI).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'

test('an unreadable profile shows "!" and why (each problem) in the rail; a readable one keeps its count', async ({
  page
}) => {
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-problem-'))
  mkdirSync(join(home, 'profiles', 'broken'), { recursive: true })
  writeFileSync(join(home, 'profiles', 'broken', 'state.db'), Buffer.alloc(8192, 0x41))
  // …and its config.yaml cannot be read either (a folder in its place): the rail names both, not only the first.
  mkdirSync(join(home, 'profiles', 'broken', 'config.yaml'))
  const host = await startHost({ home, demo: false })
  try {
    const shell = new AppShell(page)
    await shell.open(host.url)
    const problem = page.getByTestId('profile-problem-broken')
    await expect(problem).toHaveText(/^! cannot be read: .*not a database/)
    await expect(problem).toHaveAttribute('title', /broken cannot be read: .*not a database/)
    await expect(problem).toHaveAttribute('title', /\ncannot read .*broken.config\.yaml/)
    await expect(problem).toContainText('config.yaml')
    await expect(shell.profile('default').locator('.rail-count')).toHaveText('0')
  } finally {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  }
})
