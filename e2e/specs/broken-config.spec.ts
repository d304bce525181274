// A profile whose config.yaml is not valid YAML: Settings, the Memory page's provider section and the profile rail
// say the file cannot be read (file, line, reason) instead of showing defaults as the profile's settings; viewing
// writes nothing to the profile (test/broken-config.test.ts covers the requests).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startHost } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { MemoryPage } from '../page-models/memory-page'

const BROKEN = 'model:\n  default: gpt-4o\n  provider: [unclosed\nmemory: {provider: holographic\n'

test('a broken config.yaml is named on Settings, Memory and the rail; nothing is written to the profile', async ({
  page
}) => {
  const home = mkdtempSync(join(tmpdir(), 'cad-e2e-brokencfg-'))
  const dir = join(home, 'profiles', 'broken')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'config.yaml')
  writeFileSync(file, BROKEN)
  writeFileSync(
    join(home, 'config.yaml'),
    'model:\n  default: gpt-4o\n  provider: openai\n  context_length: 128000\ncompression:\n  threshold: 0.5\n'
  )
  const host = await startHost({ home, demo: false })
  try {
    const shell = new AppShell(page)
    await shell.open(host.url, '#/settings/broken')
    const error = page.getByTestId('settings-config-error')
    await expect(error).toContainText('config.yaml cannot be read')
    await expect(page.getByTestId('settings-config-error-detail')).toContainText(`${file}, line 4`)
    await expect(page.getByTestId('settings-form')).toHaveCount(0)
    await expect(page.getByText('claude-sonnet-4')).toHaveCount(0)

    // the healthy profile's form is still there
    await page.getByTestId('settings-profile').selectOption('default')
    await expect(page.locator('[data-testid="settings-form"][data-profile="default"]')).toBeVisible()
    await expect(page.getByTestId('settings-model')).toHaveValue('gpt-4o')
    // where its sessions really compress: upstream's floor raises the configured 50% to 75% under a 512K window
    await expect(page.getByTestId('settings-compression')).toHaveText(
      'compression at 96,000 tokens (75% of the 128,000-token context window)'
    )
    await expect(page.getByTestId('settings-compression-why')).toContainText(
      'config.yaml asks for 50%: raised to 75% for a window under 512K tokens'
    )

    await expect(page.getByTestId('profile-notice-broken')).toHaveAttribute('title', new RegExp(`${file}, line 4`))
    await shell.selectProfile('broken')
    const memory = new MemoryPage(page)
    await memory.open()
    await expect(page.getByTestId('memory-provider-config-error')).toContainText(`${file}, line 4`)
    await expect(memory.providerStatus).not.toContainText('Built-in memory')
    await expect(page.getByTestId('memory-provider-select')).toBeDisabled()
  } finally {
    await host.close()
  }
  expect(readFileSync(file, 'utf8')).toBe(BROKEN)
  expect(readdirSync(dir).filter((f) => f.startsWith('config.yaml'))).toEqual(['config.yaml'])
  rmSync(home, { recursive: true, force: true })
})
