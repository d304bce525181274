/**
 * The same flows against the real Electron window. Runs only where an Electron binary and an
 * Electron-ABI better-sqlite3 build exist (`npm start` prepares the latter); elsewhere it is skipped
 * with the reason, and the headless specs cover the identical renderer and host.
 */
import { _electron as electron, test, expect } from '@playwright/test'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SessionsPage } from '../page-models/sessions-page'

const repo = resolve(import.meta.dirname, '../..')

function electronBinary(): string | null {
  const pathFile = join(repo, 'node_modules/electron/path.txt')
  if (!existsSync(pathFile)) return null
  const bin = join(repo, 'node_modules/electron/dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(bin) ? bin : null
}

function electronSqlite(): string | null {
  const dir = join(repo, '.native')
  if (!existsSync(dir)) return null
  for (const sub of readdirSync(dir)) {
    const binding = join(dir, sub, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')
    if (existsSync(binding)) return binding
  }
  return null
}

const bin = electronBinary()
const binding = electronSqlite()

test('the Electron window shows the sessions list and searches', async () => {
  test.skip(
    !bin,
    'no Electron binary on this machine (it cannot be downloaded here); the headless specs cover the same UI'
  )
  test.skip(!binding, 'no Electron-ABI better-sqlite3 build yet; run `npm start` once to prepare it')
  const home = mkdtempSync(join(tmpdir(), 'cad-electron-'))
  const app = await electron.launch({
    executablePath: bin!,
    args: [join(repo, 'out/main/index.js'), '--home', home, '--demo'],
    env: { ...process.env, CADUCEUS_SQLITE_BINDING: binding!, CADUCEUS_LOG_DIR: join(home, 'logs') }
  })
  try {
    const window = await app.firstWindow()
    const sessions = new SessionsPage(window)
    await expect(sessions.rows.first()).toBeVisible()
    // The renderer has no Node: the preload exposes only the contract transport.
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined')
    await sessions.search('rollback')
    await expect(sessions.hits.first()).toBeVisible()
  } finally {
    await app.close()
    rmSync(home, { recursive: true, force: true })
  }
})
